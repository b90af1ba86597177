/**
 * platform_a's webhook signature: header `X-Platform-A-Signature: v=<Unix ms>,d=<hex>`,
 * digest = HMAC-SHA256(secret, raw body bytes followed by the timestamp digits).
 */
import { createHmac } from 'node:crypto';
import { DIGITS, INVALID_SIGNATURE, sameDigest, single, withinWindow, type WebhookHeaders, type WebhookVerdict } from '../webhook-signature.js';

export const PLATFORM_A_SIGNATURE_HEADER = 'x-platform-a-signature';

export function verifyPlatformAWebhook(rawBody: Buffer, headers: WebhookHeaders, secret: string, nowMs: number): WebhookVerdict {
  const header = single(headers, PLATFORM_A_SIGNATURE_HEADER);
  if (!header) return INVALID_SIGNATURE;
  const parts = new Map<string, string>();
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) return INVALID_SIGNATURE;
    const key = part.slice(0, at).trim();
    if (parts.has(key)) return INVALID_SIGNATURE;
    parts.set(key, part.slice(at + 1).trim());
  }
  const timestamp = parts.get('v');
  const digest = parts.get('d');
  if (timestamp === undefined || digest === undefined || !DIGITS.test(timestamp)) return INVALID_SIGNATURE;
  const expected = createHmac('sha256', secret).update(rawBody).update(timestamp).digest();
  if (!sameDigest(expected, digest)) return INVALID_SIGNATURE;
  return withinWindow(Number(timestamp), nowMs);
}
