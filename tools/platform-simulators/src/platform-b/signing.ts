import { createHmac } from 'node:crypto';

export const PLATFORM_B_TIMESTAMP_HEADER = 'X-Timestamp';
export const PLATFORM_B_SIGNATURE_HEADER = 'X-Signature';

/**
 * platform_b's webhook signature: `X-Timestamp: <Unix seconds>` and `X-Signature: <hex HMAC-SHA256(secret,
 * "<X-Timestamp>.<raw body>")>`. Pure, so a receiver's tests can sign the bodies they send it.
 */
export function signPlatformBWebhook(rawBody: string | Buffer, secret: string, timestampSeconds: number = Math.floor(Date.now() / 1000)): Record<string, string> {
  const timestamp = String(Math.trunc(timestampSeconds));
  const signature = createHmac('sha256', secret)
    .update(`${timestamp}.`)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
  return { [PLATFORM_B_TIMESTAMP_HEADER]: timestamp, [PLATFORM_B_SIGNATURE_HEADER]: signature };
}
