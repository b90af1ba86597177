export type IfMatch = { ok: true; expectedVersion?: number } | { ok: false };

const ENTITY_TAG = /^(?:W\/)?"(0|[1-9][0-9]{0,9})"$/;

/**
 * Our ETags are the agent's stream version, `"<n>"`. `*` (or no header) means
 * "whatever the current version is". Weak tags are accepted because proxies may
 * weaken them. Anything else, lists included, is refused rather than ignored so
 * a client never believes it is protected when it is not.
 */
export function parseIfMatch(header: string | undefined): IfMatch {
  if (header === undefined) return { ok: true };
  const value = header.trim();
  if (value === '*') return { ok: true };
  const match = ENTITY_TAG.exec(value);
  if (!match) return { ok: false };
  const version = Number(match[1]);
  return Number.isSafeInteger(version) ? { ok: true, expectedVersion: version } : { ok: false };
}

export function etagOf(version: number): string {
  return `"${version}"`;
}
