import { describe, expect, it } from '@jest/globals';
import { resolveRequestId } from './request-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('resolveRequestId', () => {
  it('honours a sane client id', () => {
    expect(resolveRequestId('req-123_abc.9:z')).toBe('req-123_abc.9:z');
  });
  it.each([[undefined], [''], ['x'.repeat(129)], ['has space'], ['new\nline'], ['<script>']])('replaces %j with a UUID', (value) => {
    expect(resolveRequestId(value)).toMatch(UUID);
  });
  it('generates a different id each time', () => {
    expect(resolveRequestId(undefined)).not.toBe(resolveRequestId(undefined));
  });
});
