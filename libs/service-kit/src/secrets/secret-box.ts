/**
 * Encryption at rest of short secrets (a platform API key, a webhook secret):
 * AES-256-GCM under a 32-byte key from configuration, a random 12-byte IV per
 * sealing, and the key's id in the sealed text so an older key can still open
 * what it sealed while a newer one seals everything new.
 *
 * Sealed form: `sb1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The
 * version and key id are authenticated along with an optional context (say
 * "account:42/platform_a/api_key"), so a sealed value copied into another row
 * or relabelled with another key id fails to open instead of being accepted.
 * The key id is derived from the key itself (a truncated SHA-256), so keys need
 * no ids in configuration and a wrong key is told apart from a damaged value.
 *
 * Rotating the key (INTEGRATIONS_KEY, with INTEGRATIONS_KEY_PREVIOUS beside it):
 * 1. Make a new key: `openssl rand -base64 32`.
 * 2. With a rolling deploy, first give every replica the new key as
 *    INTEGRATIONS_KEY_PREVIOUS (it can then open values the new key seals);
 *    skip this when every replica restarts at once.
 * 3. Deploy INTEGRATIONS_KEY=<new> and INTEGRATIONS_KEY_PREVIOUS=<old>: new
 *    values are sealed with the new key, both keys open.
 * 4. Re-seal the stored values: every value for which `sealedWithCurrentKey`
 *    is false is replaced by `seal(open(value))` (same context).
 * 5. When no stored value starts with `sb1.<old key id>.` any more (the old id
 *    is `keyIdOf(oldKey)`, also in the log line of a failed open), remove
 *    INTEGRATIONS_KEY_PREVIOUS and deploy. Then destroy the old key.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError } from '../config/config.js';

const VERSION = 'sb1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type SecretBoxFailure = 'malformed' | 'unknown_key' | 'tampered';

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
  constructor(readonly kind: SecretBoxFailure, message: string) {
    super(message);
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * A 32-byte key from its base64 (or base64url) text. Anything else is refused
 * with a message naming the setting and never showing the value.
 */
export function parseKey(text: string, settingName = 'key'): Buffer {
  const trimmed = text.trim();
  const hint = `${settingName} must be 32 random bytes in base64 (make one with: openssl rand -base64 32)`;
  if (!trimmed) throw new ConfigError(`${hint}; it is empty`);
  if (!BASE64.test(trimmed) && !BASE64URL.test(trimmed)) throw new ConfigError(`${hint}; it contains characters that are not base64`);
  const key = Buffer.from(trimmed, BASE64URL.test(trimmed) ? 'base64url' : 'base64');
  if (key.length !== KEY_BYTES) throw new ConfigError(`${hint}; it decodes to ${key.length} bytes`);
  return key;
}

/** Public, stable name of a key: what sealed values carry to say which key opens them. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('secret-box key id\0').update(key).digest('base64url').slice(0, 8);
}

/**
 * The last four characters of a secret, to show which one is stored without
 * showing it. Secrets under 16 characters get no hint: four characters would
 * be too large a share of them.
 */
export function secretHint(secret: string): string {
  const characters = Array.from(secret);
  return characters.length < 16 ? '' : characters.slice(-4).join('');
}

export interface SecretBoxKeys {
  /** Seals everything new; opens what it sealed. */
  current: Buffer;
  /** Older (or, during a rolling rotation, newer) keys: open only. */
  previous?: readonly Buffer[];
}

function associatedData(keyId: string, context: string): Buffer {
  return Buffer.from(`${VERSION}.${keyId}\0${context}`, 'utf8');
}

export class SecretBox {
  readonly currentKeyId: string;
  private readonly current: Buffer;
  private readonly openers: ReadonlyMap<string, Buffer>;

  constructor(keys: SecretBoxKeys) {
    for (const key of [keys.current, ...(keys.previous ?? [])]) {
      if (key.length !== KEY_BYTES) throw new ConfigError(`a secret box key must be ${KEY_BYTES} bytes (got ${key.length})`);
    }
    this.current = keys.current;
    this.currentKeyId = keyIdOf(keys.current);
    this.openers = new Map([...(keys.previous ?? []), keys.current].map((key) => [keyIdOf(key), key]));
  }

  /** `context` binds the sealed value to where it is stored; give the same one to `open`. */
  seal(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(this.currentKeyId, context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.currentKeyId, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** Throws SecretBoxError: malformed text, a key that is not configured, or a value that fails authentication. */
  open(sealed: string, context = ''): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION || !parts.slice(1).every((part) => BASE64URL.test(part))) {
      throw new SecretBoxError('malformed', `not a sealed secret (expected ${VERSION}.<key id>.<iv>.<ciphertext>.<tag>)`);
    }
    const [, keyId, ivText, ciphertextText, tagText] = parts;
    const key = this.openers.get(keyId);
    if (!key) {
      const known = [...this.openers.keys()].join(', ');
      throw new SecretBoxError('unknown_key', `sealed under key id ${keyId}, which is not configured (configured: ${known})`);
    }
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('malformed', 'sealed secret has a wrong-sized IV or tag');
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(keyId, context));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('tampered', `sealed secret (key id ${keyId}) failed authentication: altered, or opened with another context`);
    }
  }

  /** False for values a rotation should re-seal. */
  sealedWithCurrentKey(sealed: string): boolean {
    return sealed.startsWith(`${VERSION}.${this.currentKeyId}.`);
  }
}

/**
 * The box from `<name>` (required) and `<name>_PREVIOUS` (optional,
 * comma-separated), every problem reported at once like readConfig does.
 */
export function secretBoxFromEnv(name = 'INTEGRATIONS_KEY', env: NodeJS.ProcessEnv = process.env): SecretBox {
  const problems: string[] = [];
  const parse = (text: string, setting: string): Buffer | undefined => {
    try {
      return parseKey(text, setting);
    } catch (error) {
      problems.push((error as Error).message);
      return undefined;
    }
  };
  const currentText = env[name]?.trim();
  const current = currentText ? parse(currentText, name) : (problems.push(`${name} is required (openssl rand -base64 32)`), undefined);
  const previousName = `${name}_PREVIOUS`;
  const previous = (env[previousName] ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => parse(part, previousName));
  if (problems.length > 0 || !current) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return new SecretBox({ current, previous: previous.filter((key): key is Buffer => key !== undefined) });
}
