import { describe, expect, it } from '@jest/globals';
import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-key.js';

describe('API keys', () => {
  it('are vk_ plus 40 base62 characters, unique, with a short display prefix', () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    for (const key of keys) {
      expect(key.secret).toMatch(/^vk_[A-Za-z0-9]{40}$/);
      expect(looksLikeApiKey(key.secret)).toBe(true);
      expect(key.secret.startsWith(key.prefix)).toBe(true);
      expect(key.prefix.length).toBeLessThan(12);
    }
    expect(new Set(keys.map((k) => k.secret)).size).toBe(keys.length);
  });

  it('use every base62 character (no skew toward a subset)', () => {
    const seen = new Set(Array.from({ length: 100 }, () => generateApiKey().secret.slice(3)).join(''));
    expect(seen.size).toBe(62);
  });

  it('are stored as a SHA-256 that matches only the same secret', () => {
    const key = generateApiKey();
    expect(key.hash).toHaveLength(32);
    expect(hashApiKey(key.secret).equals(key.hash)).toBe(true);
    // Change the last character to one it is not (a fixed 'x' would be a no-op for 1 key in 62).
    const other = key.secret.endsWith('x') ? 'y' : 'x';
    expect(hashApiKey(`${key.secret.slice(0, -1)}${other}`).equals(key.hash)).toBe(false);
  });

  it('reject malformed values before any lookup', () => {
    expect(looksLikeApiKey('vk_short')).toBe(false);
    expect(looksLikeApiKey(`sk_${'a'.repeat(40)}`)).toBe(false);
    expect(looksLikeApiKey(`vk_${'a'.repeat(39)}!`)).toBe(false);
  });
});
