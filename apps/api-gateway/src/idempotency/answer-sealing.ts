/**
 * What gateway.idempotency_keys holds of a client's key and answer. Answers of creates can carry secrets
 * (a new API key, an account's first key), and a key table readable by anyone with database access must
 * not become a second place those live: the row is found by a digest of the key, and the answer is sealed
 * (AES-256-GCM) under a key derived from the client's Idempotency-Key, which is never stored. Only a
 * request that presents the key again can open its answer.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'ia1';

/** The row's key: the client's key, hashed with its scope (two scopes' equal keys are unrelated rows). */
export function keyDigest(scope: string, key: string): string {
  return createHash('sha256').update(`${scope}\u0000${key}`).digest('hex');
}

function answerKey(scope: string, key: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, scope, 'idempotent-answer', 32));
}

export function sealAnswer(body: string, scope: string, key: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', answerKey(scope, key), iv);
  const sealed = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  return `${VERSION}.${iv.toString('base64')}.${cipher.getAuthTag().toString('base64')}.${sealed.toString('base64')}`;
}

/** The answer, or undefined when it does not open with this key (tampered, or another key's). */
export function openAnswer(stored: string, scope: string, key: string): string | undefined {
  const [version, iv, tag, sealed] = stored.split('.');
  if (version !== VERSION || !iv || !tag || sealed === undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', answerKey(scope, key), Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
