/**
 * Whether a parsed JSON value is an object with keys (not null, not an array): the first check every reader of
 * an untrusted body makes. Written once, here, so that every service and library reads bodies alike.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
