import { describe, expect, it } from '@jest/globals';
import { subjectMatches } from './subject-matching.js';

describe('subjectMatches', () => {
  it('follows NATS wildcard rules', () => {
    expect(subjectMatches('a.>', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.>', 'a')).toBe(false);
    expect(subjectMatches('a.*.c', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.*', 'a.b.c')).toBe(false);
    expect(subjectMatches('a.b', 'a.b')).toBe(true);
    expect(subjectMatches('a.b', 'a.c')).toBe(false);
  });
});
