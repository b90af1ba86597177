import { describe, expect, it } from '@jest/globals';
import { bearerToken } from './bearer.js';

describe('bearerToken', () => {
  it('reads the token, scheme case-insensitive', () => {
    expect(bearerToken('Bearer abc')).toEqual({ kind: 'token', token: 'abc' });
    expect(bearerToken('bearer   abc ')).toEqual({ kind: 'token', token: 'abc' });
  });
  it('tells a missing header from a malformed one', () => {
    expect(bearerToken(undefined)).toEqual({ kind: 'missing' });
    expect(bearerToken('  ')).toEqual({ kind: 'missing' });
    expect(bearerToken('Basic dXNlcjpwYXNz')).toEqual({ kind: 'malformed' });
    expect(bearerToken('Bearer')).toEqual({ kind: 'malformed' });
    expect(bearerToken('Bearer a b')).toEqual({ kind: 'malformed' });
  });
});
