import { describe, expect, it } from '@jest/globals';
import { etagOf, ifMatchHolds, parseIfMatch } from './if-match.js';

describe('parseIfMatch', () => {
  it('reads our strong entity tags as versions', () => {
    expect(parseIfMatch('"3"')).toEqual({ kind: 'tags', strong: [3], weak: false });
    expect(parseIfMatch(' "0" ')).toEqual({ kind: 'tags', strong: [0], weak: false });
    expect(parseIfMatch('"9999999999"')).toEqual({ kind: 'tags', strong: [9_999_999_999], weak: false });
  });

  it('reads a comma-separated list, tolerating optional whitespace and empty elements, de-duplicating', () => {
    expect(parseIfMatch('"1", "2","3"')).toEqual({ kind: 'tags', strong: [1, 2, 3], weak: false });
    expect(parseIfMatch('"2", , "2",')).toEqual({ kind: 'tags', strong: [2], weak: false });
  });

  it('notes weak tags without counting them as versions', () => {
    expect(parseIfMatch('W/"12"')).toEqual({ kind: 'tags', strong: [], weak: true });
    expect(parseIfMatch('W/"1", "2"')).toEqual({ kind: 'tags', strong: [2], weak: true });
  });

  it('tells an absent header from *', () => {
    expect(parseIfMatch(undefined)).toEqual({ kind: 'absent' });
    expect(parseIfMatch('*')).toEqual({ kind: 'any' });
    expect(parseIfMatch(' * ')).toEqual({ kind: 'any' });
  });

  it.each([
    '4', '"04"', '"abc"', '"-1"', '"1.0"', 'W/3', 'w/"3"', 'W/ "3"', 'W/"abc"', '""', '"99999999999"', '', ' ', ',', '"1" "2"',
    '"1", 2', '"1", *', '*, *', '**', '"3', '3"', "'3'", 'version-2', '"a,b"',
  ])('refuses %j as malformed', (header) => {
    expect(parseIfMatch(header)).toEqual({ kind: 'malformed' });
  });

  it('round-trips with etagOf', () => {
    expect(parseIfMatch(etagOf(7))).toEqual({ kind: 'tags', strong: [7], weak: false });
  });
});

describe('ifMatchHolds (strong comparison)', () => {
  const holds = (header: string | undefined, current: number) => ifMatchHolds(parseIfMatch(header), current);

  it('holds without a header and for * whatever the version', () => {
    expect(holds(undefined, 5)).toBe(true);
    expect(holds('*', 1)).toBe(true);
    expect(holds('*', 42)).toBe(true);
  });

  it('holds when ANY listed strong tag is the current version', () => {
    expect(holds('"5"', 5)).toBe(true);
    expect(holds('"3", "4", "5"', 5)).toBe(true);
    expect(holds('"5", "6"', 5)).toBe(true);
    expect(holds('W/"5", "5"', 5)).toBe(true);
  });

  it('fails when no listed strong tag is current', () => {
    expect(holds('"4"', 5)).toBe(false);
    expect(holds('"3", "4"', 5)).toBe(false);
  });

  it('a weak tag never matches, even of the current version', () => {
    expect(holds('W/"5"', 5)).toBe(false);
    expect(holds('W/"5", W/"6"', 5)).toBe(false);
    expect(holds('W/"5", "4"', 5)).toBe(false);
  });

  it('a malformed header never holds', () => {
    expect(holds('5', 5)).toBe(false);
    expect(holds('"05"', 5)).toBe(false);
  });
});
