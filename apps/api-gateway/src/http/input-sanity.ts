/**
 * Input no field-level rule should ever see. Parsed JSON can hold values that
 * are valid JSON but that no layer behind the gateway can carry: a U+0000 that
 * PostgreSQL text refuses, a lone UTF-16 surrogate that jsonb refuses (and that
 * text would silently turn into U+FFFD), or nesting so deep that serializing
 * it for the bus overflows the stack. They are refused here, once, naming the
 * field, so they become a 400 instead of a 500 or a false 503 further in. The
 * rule is the contract's (`isStorableText`), the one call events are held to.
 */

import { isStorableText } from '@voice/contracts';

/** Deeper than any document of this API (business_hours.schedule[0].open is 4 levels) by a wide margin. */
export const MAX_JSON_DEPTH = 32;

export interface InputProblem {
  kind: 'too_deep' | 'unrepresentable';
  /** Dotted path with [index] for arrays, as in every other `field` of this API. */
  field: string;
}

/** For error messages: each offending character replaced by U+FFFD, so the message itself is storable and printable. */
export function printable(text: string): string {
  // With the `u` flag a well-formed surrogate pair is one code point outside D800–DFFF: only lone halves match.
  return text.replace(/[\u0000\uD800-\uDFFF]/gu, '\uFFFD');
}

const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

/** The first problem in a parsed JSON value (object keys count as text too), or undefined. */
export function findInputProblem(value: unknown, path = '', depth = 0): InputProblem | undefined {
  if (typeof value === 'string') return !isStorableText(value) ? { kind: 'unrepresentable', field: path } : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_JSON_DEPTH) return { kind: 'too_deep', field: path };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = findInputProblem(value[i], join(path, i), depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const field = join(path, key);
    if (!isStorableText(key)) return { kind: 'unrepresentable', field };
    const problem = findInputProblem(item, field, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}
