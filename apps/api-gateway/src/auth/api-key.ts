import { hash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_LENGTH = 40;
const KEY_PATTERN = /^vk_[A-Za-z0-9]{40}$/;
/** Characters shown in listings so a person can tell keys apart; the rest stays secret. */
const DISPLAY_PREFIX_LENGTH = 'vk_'.length + 6;

/** 40 base62 characters, drawn without modulo bias (bytes ≥ 248 are rejected). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export interface NewApiKey {
  /** Shown to the client exactly once. */
  secret: string;
  prefix: string;
  hash: Buffer;
}

export function generateApiKey(): NewApiKey {
  const secret = `vk_${randomBase62(SECRET_LENGTH)}`;
  return { secret, prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashApiKey(secret) };
}

/**
 * A plain SHA-256 is enough here: keys carry ~238 bits of randomness, so unlike
 * passwords they cannot be guessed or dictionary-attacked, and a slow KDF would
 * only add latency to every request. The hash is also what we look keys up by.
 */
export function hashApiKey(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}
