export type BearerToken = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'token'; token: string };

/** Reads `Authorization: Bearer <token>` (scheme case-insensitive, per RFC 7235). */
export function bearerToken(header: string | undefined): BearerToken {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header.trim());
  return match ? { kind: 'token', token: match[1] } : { kind: 'malformed' };
}
