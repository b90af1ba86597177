import { createHmac } from 'node:crypto';

export const PLATFORM_A_SIGNATURE_HEADER = 'X-Platform-A-Signature';

/**
 * platform_a's webhook signature: `v=<Unix ms>,d=<hex HMAC-SHA256(secret, raw body bytes + timestamp digits)>`.
 * Pure, so a receiver's tests can sign the bodies they send it (including stale or future timestamps).
 */
export function signPlatformAWebhook(rawBody: string | Buffer, secret: string, timestampMs: number = Date.now()): Record<string, string> {
  const timestamp = String(Math.trunc(timestampMs));
  const digest = createHmac('sha256', secret)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .update(timestamp)
    .digest('hex');
  return { [PLATFORM_A_SIGNATURE_HEADER]: `v=${timestamp},d=${digest}` };
}
