/**
 * If-Match for agents (RFC 9110 §13.1.1). Our ETags are the agent's stream
 * version as a strong tag, `"<n>"`.
 *
 * - absent: no precondition;
 * - `*`: true for any existing agent;
 * - a comma-separated list of entity tags: true when ANY listed tag matches the
 *   current version by the strong comparison, so a weak tag (`W/"3"`) never
 *   matches (it only ever yields 412);
 * - anything else (a bare `3`, `"03"`, `"abc"`, `*` inside a list, …) is not an
 *   ETag this API issued: the request is malformed (400), never silently
 *   treated as unconditional.
 */
export type IfMatch =
  | { kind: 'absent' }
  | { kind: 'any' }
  /** `strong`: the versions named by strong tags, de-duplicated, in header order; `weak`: whether weak tags were listed too. */
  | { kind: 'tags'; strong: number[]; weak: boolean }
  | { kind: 'malformed' };

const ENTITY_TAG = /^(W\/)?"(0|[1-9][0-9]{0,9})"$/;

export function parseIfMatch(header: string | undefined): IfMatch {
  if (header === undefined) return { kind: 'absent' };
  const value = header.trim();
  if (value === '*') return { kind: 'any' };
  // RFC 9110 §5.6.1: a recipient accepts empty list elements ("a, , b"); only a list with no element at all is malformed.
  const elements = value.split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (elements.length === 0) return { kind: 'malformed' };
  const strong: number[] = [];
  let weak = false;
  for (const element of elements) {
    const match = ENTITY_TAG.exec(element);
    if (!match) return { kind: 'malformed' };
    if (match[1]) {
      weak = true;
      continue;
    }
    const version = Number(match[2]);
    if (!strong.includes(version)) strong.push(version);
  }
  return { kind: 'tags', strong, weak };
}

/** Whether a parsed If-Match holds for an existing agent at `currentVersion`. */
export function ifMatchHolds(ifMatch: IfMatch, currentVersion: number): boolean {
  switch (ifMatch.kind) {
    case 'absent':
    case 'any':
      return true;
    case 'tags':
      return ifMatch.strong.includes(currentVersion);
    case 'malformed':
      return false;
  }
}

export function etagOf(version: number): string {
  return `"${version}"`;
}
