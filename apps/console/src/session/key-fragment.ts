/**
 * Reads `api_key` from a URL fragment (`#api_key=vk_…`, possibly among other parameters) and returns the
 * fragment without it ('' when nothing else is left).
 */
export function keyFromFragment(hash: string): { key: string | undefined; fragment: string } {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const key = params.get('api_key')?.trim() || undefined;
  if (!params.has('api_key')) return { key, fragment: hash };
  params.delete('api_key');
  const rest = params.toString();
  return { key, fragment: rest ? `#${rest}` : '' };
}
