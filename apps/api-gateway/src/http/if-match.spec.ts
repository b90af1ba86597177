import { describe, expect, it } from '@jest/globals';
import { etagOf, parseIfMatch } from './if-match.js';

describe('parseIfMatch', () => {
  it('reads our strong and weak entity tags as the expected version', () => {
    expect(parseIfMatch('"3"')).toEqual({ ok: true, expectedVersion: 3 });
    expect(parseIfMatch('W/"12"')).toEqual({ ok: true, expectedVersion: 12 });
    expect(parseIfMatch(' "0" ')).toEqual({ ok: true, expectedVersion: 0 });
  });

  it('treats an absent header and * as "any version"', () => {
    expect(parseIfMatch(undefined)).toEqual({ ok: true });
    expect(parseIfMatch('*')).toEqual({ ok: true });
  });

  it.each(['3', '"abc"', '"-1"', '"01"', '"1", "2"', 'W/3', '""', '"99999999999"', ''])('refuses %j', (header) => {
    expect(parseIfMatch(header)).toEqual({ ok: false });
  });

  it('round-trips with etagOf', () => {
    expect(parseIfMatch(etagOf(7))).toEqual({ ok: true, expectedVersion: 7 });
  });
});
