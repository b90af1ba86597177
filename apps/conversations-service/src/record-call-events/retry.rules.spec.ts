import { describe, expect, it } from '@jest/globals';
import { unknownAgentDelay } from './retry.rules.js';

describe('retry delay for events of unknown agents', () => {
  it('doubles per delivery up to five minutes', () => {
    expect([1, 2, 3, 4].map((n) => unknownAgentDelay(2000, n))).toEqual([2000, 4000, 8000, 16000]);
    expect(unknownAgentDelay(2000, 50)).toBe(300_000);
  });
});
