import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { keyDigest, openAnswer, sealAnswer } from './answer-sealing.js';

describe('sealed idempotent answers', () => {
  it('open with the same scope and key only', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1, maxLength: 255 }), fc.string({ minLength: 1, maxLength: 255 }), (body, key, other) => {
        const sealed = sealAnswer(body, 'acct_1', key);
        expect(openAnswer(sealed, 'acct_1', key)).toBe(body);
        if (other !== key) expect(openAnswer(sealed, 'acct_1', other)).toBeUndefined();
        expect(openAnswer(sealed, 'acct_2', key)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('never hold the answer or the key in the clear', () => {
    const body = '{"data":{"api_key":"vk_0123456789abcdefghijklmnopqrstuvwxyzABCD"}}';
    const sealed = sealAnswer(body, 'acct_1', 'retry-1');
    expect(sealed).not.toContain('vk_');
    expect(sealed).not.toContain(Buffer.from(body).toString('base64').slice(0, 16));
    expect(keyDigest('acct_1', 'retry-1')).toMatch(/^[0-9a-f]{64}$/);
    expect(keyDigest('acct_1', 'retry-1')).not.toBe(keyDigest('acct_2', 'retry-1'));
  });

  it('refuses a tampered or malformed answer', () => {
    const sealed = sealAnswer('{"ok":true}', 's', 'k');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3], 'base64');
    flipped[0] ^= 1;
    expect(openAnswer([parts[0], parts[1], parts[2], flipped.toString('base64')].join('.'), 's', 'k')).toBeUndefined();
    expect(openAnswer('plain text', 's', 'k')).toBeUndefined();
  });
});
