/** Value formats both platforms check. Kept apart from the service's own checks on purpose: the simulators judge the service's requests independently. */

const E164 = /^\+[1-9]\d{1,14}$/;
const AREA_CODE = /^\d{3}$/;

export function isE164(value: unknown): value is string {
  return typeof value === 'string' && E164.test(value);
}

export function isAreaCode(value: unknown): value is string {
  return typeof value === 'string' && AREA_CODE.test(value);
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Length limits count characters (Unicode code points), so an emoji is one, not two UTF-16 units. */
export function characterCount(text: string): number {
  return Array.from(text).length;
}
