/** Media types the transcript endpoint can produce, in the order we prefer them on a tie. */
const FORMAT_BY_MEDIA_TYPE: Array<[string, string]> = [
  ['application/json', 'json'],
  ['text/plain', 'text'],
  ['application/x-subrip', 'srt'],
  ['text/vtt', 'vtt'],
];

interface MediaRange {
  type: string;
  q: number;
  order: number;
}

function parseAccept(accept: string): MediaRange[] {
  return accept
    .split(',')
    .map((part, order) => {
      const [type, ...params] = part.trim().toLowerCase().split(';');
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const q = qParam ? Number(qParam.slice(2)) : 1;
      return { type: type.trim(), q: Number.isFinite(q) ? q : 0, order };
    })
    .filter((range) => range.type && range.q > 0);
}

function formatFor(range: string): string | undefined {
  if (range === '*/*' || range === 'application/*') return 'json';
  if (range === 'text/*') return 'text';
  return FORMAT_BY_MEDIA_TYPE.find(([type]) => type === range)?.[1];
}

/**
 * `?format=` wins and is passed through untouched (the service answers a bad
 * value with invalid_parameter + valid_values). Otherwise the Accept header
 * picks the best-weighted format we can produce; an Accept we cannot satisfy
 * falls back to JSON rather than 406, so generic clients still get an answer.
 */
export function transcriptFormat(formatParam: unknown, accept: string | undefined): string {
  if (typeof formatParam === 'string') return formatParam;
  if (Array.isArray(formatParam)) return formatParam.map(String).join(',');
  if (!accept) return 'json';
  const ranked = parseAccept(accept)
    .map((range) => ({ ...range, format: formatFor(range.type) }))
    .filter((range): range is MediaRange & { format: string } => range.format !== undefined)
    .sort((a, b) => b.q - a.q || a.order - b.order);
  return ranked[0]?.format ?? 'json';
}
