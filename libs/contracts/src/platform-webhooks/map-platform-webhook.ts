import { mapPlatformA } from './platform-a.js';
import { mapPlatformB } from './platform-b.js';
import type { WebhookMapping, WebhookPlatform } from './types.js';
import { MalformedBody } from './values.js';

/**
 * What a platform's webhook body (parsed JSON) means in our call-event contract. Pure and deterministic:
 * no clock, no I/O; the same body always gives deep-equal results (retries and duplicates give the same
 * event ids and contents). Never throws for any JSON value: a body that is not the platform's shape is
 * `malformed` (the reason names the path), one that records nothing is `ignored`.
 */
export function mapPlatformWebhook(platform: WebhookPlatform, body: unknown): WebhookMapping {
  try {
    if (platform === 'platform_a') return mapPlatformA(body);
    if (platform === 'platform_b') return mapPlatformB(body);
  } catch (error) {
    if (error instanceof MalformedBody) return { result: 'malformed', reason: error.message };
    throw error;
  }
  throw new RangeError(`unknown voice platform: ${String(platform)}`);
}
