import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../config/config.js';
import { keyIdOf, parseKey, SecretBox, SecretBoxError, secretBoxFromEnv, secretHint } from './secret-box.js';

const API_KEY = 'pa_live_4f9c2e7d1b3a5c8e9f0a';

function openFailure(box: SecretBox, sealed: string, context?: string): SecretBoxError {
  try {
    box.open(sealed, context);
  } catch (error) {
    expect(error).toBeInstanceOf(SecretBoxError);
    return error as SecretBoxError;
  }
  throw new Error('open succeeded');
}

/** Flips one bit of the part at `index` (0 version … 4 tag). */
function flipBit(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index], 'base64url');
  bytes[0] ^= 1;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('SecretBox', () => {
  const key = randomBytes(32);
  const box = new SecretBox({ current: key });

  it('opens what it sealed, and the sealed text does not contain the secret', () => {
    const sealed = box.seal(API_KEY);
    expect(sealed).not.toContain(API_KEY);
    expect(sealed.startsWith(`sb1.${keyIdOf(key)}.`)).toBe(true);
    expect(box.open(sealed)).toBe(API_KEY);
    expect(box.open(box.seal(''))).toBe('');
    expect(box.open(box.seal('clé ✓'))).toBe('clé ✓');
  });

  it('uses a fresh 12-byte IV each time', () => {
    const first = box.seal(API_KEY).split('.');
    const second = box.seal(API_KEY).split('.');
    expect(Buffer.from(first[2], 'base64url')).toHaveLength(12);
    expect(first[2]).not.toBe(second[2]);
    expect(first[3]).not.toBe(second[3]);
  });

  it.each([
    ['IV', 2],
    ['ciphertext', 3],
    ['tag', 4],
  ])('refuses a value whose %s was altered', (_part, index) => {
    expect(openFailure(box, flipBit(box.seal(API_KEY), index)).kind).toBe('tampered');
  });

  it('refuses a value relabelled with another configured key id', () => {
    const other = randomBytes(32);
    const both = new SecretBox({ current: key, previous: [other] });
    const parts = both.seal(API_KEY).split('.');
    parts[1] = keyIdOf(other);
    expect(openFailure(both, parts.join('.')).kind).toBe('tampered');
  });

  it('refuses a value opened with another context (copied to another row)', () => {
    const sealed = box.seal(API_KEY, 'account:1/platform_a/api_key');
    expect(box.open(sealed, 'account:1/platform_a/api_key')).toBe(API_KEY);
    expect(openFailure(box, sealed, 'account:2/platform_a/api_key').kind).toBe('tampered');
    expect(openFailure(box, sealed).kind).toBe('tampered');
  });

  it('says the key is unknown when opened with another key, naming the ids', () => {
    const stranger = new SecretBox({ current: randomBytes(32) });
    const failure = openFailure(stranger, box.seal(API_KEY));
    expect(failure.kind).toBe('unknown_key');
    expect(failure.message).toContain(keyIdOf(key));
    expect(failure.message).not.toContain(API_KEY);
  });

  it.each(['', 'plain text', 'sb1.a.b.c', 'sb2.a.b.c.d', 'sb1.id.!!.c.d'])('refuses malformed text %p', (text) => {
    expect(openFailure(box, text).kind).toBe('malformed');
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => new SecretBox({ current: randomBytes(16) })).toThrow(ConfigError);
  });
});

describe('rotation', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const before = new SecretBox({ current: oldKey });
  const during = new SecretBox({ current: newKey, previous: [oldKey] });
  const after = new SecretBox({ current: newKey });

  it('the new key seals, both keys open, and re-sealed values no longer need the old key', () => {
    const stored = before.seal(API_KEY, 'ctx');
    expect(during.open(stored, 'ctx')).toBe(API_KEY);
    expect(during.sealedWithCurrentKey(stored)).toBe(false);

    const resealed = during.seal(during.open(stored, 'ctx'), 'ctx');
    expect(during.sealedWithCurrentKey(resealed)).toBe(true);
    expect(after.open(resealed, 'ctx')).toBe(API_KEY);
    expect(openFailure(after, stored, 'ctx').kind).toBe('unknown_key');
  });

  it('a replica still on the old key opens values sealed by the new one once the new key stands as previous', () => {
    const rollingOld = new SecretBox({ current: oldKey, previous: [newKey] });
    expect(rollingOld.open(during.seal(API_KEY))).toBe(API_KEY);
  });
});

describe('parseKey', () => {
  const key = randomBytes(32);

  it('accepts base64 and base64url text of 32 bytes', () => {
    expect(parseKey(key.toString('base64'))).toEqual(key);
    expect(parseKey(` ${key.toString('base64url')}\n`)).toEqual(key);
  });

  it.each([
    ['', 'empty'],
    [randomBytes(16).toString('base64'), 'decodes to 16 bytes'],
    [randomBytes(33).toString('base64'), 'decodes to 33 bytes'],
    ['not base64 at all!', 'not base64'],
    [key.toString('hex'), 'decodes to 48 bytes'],
  ])('refuses %p with a clear message', (text, problem) => {
    expect(() => parseKey(text, 'INTEGRATIONS_KEY')).toThrow(ConfigError);
    expect(() => parseKey(text, 'INTEGRATIONS_KEY')).toThrow(new RegExp(`INTEGRATIONS_KEY must be 32 random bytes in base64.*${problem}`));
  });

  it('never echoes the value it refuses', () => {
    const almost = randomBytes(31).toString('base64');
    expect(() => parseKey(almost)).toThrow(expect.objectContaining({ message: expect.not.stringContaining(almost) }));
  });
});

describe('secretBoxFromEnv', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  it('reads the current key and the previous ones', () => {
    const sealedBefore = new SecretBox({ current: oldKey }).seal(API_KEY);
    const box = secretBoxFromEnv('INTEGRATIONS_KEY', { INTEGRATIONS_KEY: newKey.toString('base64'), INTEGRATIONS_KEY_PREVIOUS: oldKey.toString('base64') });
    expect(box.currentKeyId).toBe(keyIdOf(newKey));
    expect(box.open(sealedBefore)).toBe(API_KEY);
  });

  it('lists every problem at once', () => {
    expect(() => secretBoxFromEnv('INTEGRATIONS_KEY', { INTEGRATIONS_KEY_PREVIOUS: 'short' })).toThrow(
      /INTEGRATIONS_KEY is required[\s\S]*INTEGRATIONS_KEY_PREVIOUS must be 32 random bytes/,
    );
  });
});

describe('secretHint', () => {
  it('gives the last four characters of a long enough secret', () => {
    expect(secretHint(API_KEY)).toBe('9f0a');
  });

  it('gives nothing for a secret where four characters would give too much away', () => {
    expect(secretHint('short-secret')).toBe('');
    expect(secretHint('')).toBe('');
  });
});
