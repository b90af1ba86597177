/**
 * platform_b's webhook signature: headers `X-Timestamp: <Unix seconds>` and `X-Signature: <hex>`,
 * digest = HMAC-SHA256(secret, "<X-Timestamp>.<raw body>").
 */
import { createHmac } from 'node:crypto';
import { DIGITS, INVALID_SIGNATURE, sameDigest, single, withinWindow, type WebhookHeaders, type WebhookVerdict } from '../webhook-signature.js';

export const PLATFORM_B_TIMESTAMP_HEADER = 'x-timestamp';
export const PLATFORM_B_SIGNATURE_HEADER = 'x-signature';

export function verifyPlatformBWebhook(rawBody: Buffer, headers: WebhookHeaders, secret: string, nowMs: number): WebhookVerdict {
  const timestamp = single(headers, PLATFORM_B_TIMESTAMP_HEADER);
  const signature = single(headers, PLATFORM_B_SIGNATURE_HEADER);
  if (!timestamp || !signature || !DIGITS.test(timestamp)) return INVALID_SIGNATURE;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  if (!sameDigest(expected, signature)) return INVALID_SIGNATURE;
  return withinWindow(Number(timestamp) * 1000, nowMs);
}
