/**
 * The voice platforms' webhook signatures, verified as platforms.md says:
 * over the raw body bytes as received (re-serialised JSON does not match),
 * with the integration's webhook secret, compared in constant time, and a
 * timestamp within five minutes of our clock in either direction. Pure: the
 * caller passes the clock.
 *
 * Each platform's headers and digest are in its folder (platform-<name>/signature.ts);
 * the rules they share are here.
 *
 * A missing, malformed or wrong signature is `invalid_signature`, and so is a
 * timestamp that is not digits: nothing says which part was wrong. Only a
 * delivery whose signature is right learns that its timestamp is too old or
 * too new (`stale_timestamp`): the timestamp is signed, so that answer tells
 * nothing to someone without the secret.
 */
import { timingSafeEqual } from 'node:crypto';

export const WEBHOOK_TOLERANCE_MS = 5 * 60_000;

export type WebhookVerdict = { ok: true; signed_at_ms: number } | { ok: false; reason: 'invalid_signature' | 'stale_timestamp' };

/** Request headers by lower-case name, as Node gives them (a repeated header is an array: refused). */
export type WebhookHeaders = Readonly<Record<string, string | string[] | undefined>>;

export const INVALID_SIGNATURE: WebhookVerdict = { ok: false, reason: 'invalid_signature' };
const HEX_SHA256 = /^[0-9a-f]{64}$/;
/** At most 16 digits: far beyond any real clock in ms, and no precision lost in a JS number. */
export const DIGITS = /^\d{1,16}$/;

export function single(headers: WebhookHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value.trim() : undefined;
}

export function sameDigest(expected: Buffer, givenHex: string): boolean {
  if (!HEX_SHA256.test(givenHex)) return false;
  return timingSafeEqual(expected, Buffer.from(givenHex, 'hex'));
}

export function withinWindow(signedAtMs: number, nowMs: number): WebhookVerdict {
  if (Math.abs(nowMs - signedAtMs) > WEBHOOK_TOLERANCE_MS) return { ok: false, reason: 'stale_timestamp' };
  return { ok: true, signed_at_ms: signedAtMs };
}

/** Verifies one delivery of the platform's webhooks: raw body bytes, request headers, the integration's secret, our clock. */
export type WebhookSignatureCheck = (rawBody: Buffer, headers: WebhookHeaders, secret: string, nowMs: number) => WebhookVerdict;
