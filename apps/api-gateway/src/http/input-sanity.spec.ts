import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isStorableText } from '@voice/contracts';
import { findInputProblem, MAX_JSON_DEPTH, printable } from './input-sanity.js';

const hasUnrepresentableText = (text: string) => !isStorableText(text);

const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { a: nested(depth - 1) });

describe('input sanity', () => {
  it('refuses NUL and unpaired surrogates, keeps every well-formed string (emoji included)', () => {
    expect(hasUnrepresentableText('a\u0000b')).toBe(true);
    expect(hasUnrepresentableText('lone \uD800')).toBe(true);
    expect(hasUnrepresentableText('\uDC00 lone low')).toBe(true);
    expect(hasUnrepresentableText('reversed \uDE00\uD83D')).toBe(true);
    expect(hasUnrepresentableText('smile \uD83D\uDE00, tab\t, ünïcödé')).toBe(false);
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => !hasUnrepresentableText(s.replaceAll('\u0000', ''))));
  });

  it('names the field with the API’s dotted/indexed path, keys included', () => {
    expect(findInputProblem({ name: 'ok', metadata: { k: 'a\u0000' } })).toEqual({ kind: 'unrepresentable', field: 'metadata.k' });
    expect(findInputProblem({ business_hours: { schedule: [{ day: 'monday' }, { open: '\uD800' }] } })).toEqual({
      kind: 'unrepresentable',
      field: 'business_hours.schedule[1].open',
    });
    expect(findInputProblem({ metadata: { 'bad\u0000key': 'v' } })).toEqual({ kind: 'unrepresentable', field: 'metadata.bad\u0000key' });
    expect(findInputProblem({ name: 'fine', n: 1, b: true, z: null, list: [1, 'two'] })).toBeUndefined();
  });

  it(`allows ${MAX_JSON_DEPTH} levels of nesting and refuses one more`, () => {
    expect(findInputProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    const problem = findInputProblem(nested(MAX_JSON_DEPTH + 1));
    expect(problem?.kind).toBe('too_deep');
    expect(problem?.field.split('.')).toHaveLength(MAX_JSON_DEPTH);
  });

  it('makes messages printable without touching well-formed pairs', () => {
    expect(printable('a\u0000b\uD800c \uD83D\uDE00')).toBe('a\uFFFDb\uFFFDc \uD83D\uDE00');
  });
});
