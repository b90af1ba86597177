/**
 * The voice platforms' webhook signatures, verified as platforms.md says:
 * over the raw body bytes as received (re-serialised JSON does not match),
 * with the integration's webhook secret, compared in constant time, and a
 * timestamp within five minutes of our clock in either direction. Pure: the
 * caller passes the clock.
 *
 * - platform_a: header `X-Platform-A-Signature: v=<Unix ms>,d=<hex>`,
 *   digest = HMAC-SHA256(secret, raw body bytes followed by the timestamp digits).
 * - platform_b: headers `X-Timestamp: <Unix seconds>` and `X-Signature: <hex>`,
 *   digest = HMAC-SHA256(secret, "<X-Timestamp>.<raw body>").
 *
 * A missing, malformed or wrong signature is `invalid_signature`, and so is a
 * timestamp that is not digits: nothing says which part was wrong. Only a
 * delivery whose signature is right learns that its timestamp is too old or
 * too new (`stale_timestamp`): the timestamp is signed, so that answer tells
 * nothing to someone without the secret.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { VoicePlatform } from '@voice/contracts';

export const WEBHOOK_TOLERANCE_MS = 5 * 60_000;

export const PLATFORM_A_SIGNATURE_HEADER = 'x-platform-a-signature';
export const PLATFORM_B_TIMESTAMP_HEADER = 'x-timestamp';
export const PLATFORM_B_SIGNATURE_HEADER = 'x-signature';

export type WebhookVerdict = { ok: true; signed_at_ms: number } | { ok: false; reason: 'invalid_signature' | 'stale_timestamp' };

/** Request headers by lower-case name, as Node gives them (a repeated header is an array: refused). */
export type WebhookHeaders = Readonly<Record<string, string | string[] | undefined>>;

const INVALID: WebhookVerdict = { ok: false, reason: 'invalid_signature' };
const HEX_SHA256 = /^[0-9a-f]{64}$/;
/** At most 16 digits: far beyond any real clock in ms, and no precision lost in a JS number. */
const DIGITS = /^\d{1,16}$/;

function single(headers: WebhookHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.trim() : undefined;
}

function sameDigest(expected: Buffer, givenHex: string): boolean {
  if (!HEX_SHA256.test(givenHex)) return false;
  return timingSafeEqual(expected, Buffer.from(givenHex, 'hex'));
}

function withinWindow(signedAtMs: number, nowMs: number): WebhookVerdict {
  if (Math.abs(nowMs - signedAtMs) > WEBHOOK_TOLERANCE_MS) return { ok: false, reason: 'stale_timestamp' };
  return { ok: true, signed_at_ms: signedAtMs };
}

export function verifyPlatformAWebhook(rawBody: Buffer, headers: WebhookHeaders, secret: string, nowMs: number): WebhookVerdict {
  const header = single(headers, PLATFORM_A_SIGNATURE_HEADER);
  if (!header) return INVALID;
  const parts = new Map<string, string>();
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) return INVALID;
    const key = part.slice(0, at).trim();
    if (parts.has(key)) return INVALID;
    parts.set(key, part.slice(at + 1).trim());
  }
  const timestamp = parts.get('v');
  const digest = parts.get('d');
  if (timestamp === undefined || digest === undefined || !DIGITS.test(timestamp)) return INVALID;
  const expected = createHmac('sha256', secret).update(rawBody).update(timestamp).digest();
  if (!sameDigest(expected, digest)) return INVALID;
  return withinWindow(Number(timestamp), nowMs);
}

export function verifyPlatformBWebhook(rawBody: Buffer, headers: WebhookHeaders, secret: string, nowMs: number): WebhookVerdict {
  const timestamp = single(headers, PLATFORM_B_TIMESTAMP_HEADER);
  const signature = single(headers, PLATFORM_B_SIGNATURE_HEADER);
  if (!timestamp || !signature || !DIGITS.test(timestamp)) return INVALID;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  if (!sameDigest(expected, signature)) return INVALID;
  return withinWindow(Number(timestamp) * 1000, nowMs);
}

export function verifyWebhook(platform: VoicePlatform, rawBody: Buffer, headers: WebhookHeaders, secret: string, nowMs: number): WebhookVerdict {
  return platform === 'platform_a' ? verifyPlatformAWebhook(rawBody, headers, secret, nowMs) : verifyPlatformBWebhook(rawBody, headers, secret, nowMs);
}
