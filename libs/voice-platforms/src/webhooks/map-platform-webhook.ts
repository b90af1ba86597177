import { voicePlatform } from '../registry.js';
import type { WebhookMapping, WebhookPlatform } from './types.js';
import { MalformedBody } from './values.js';

/**
 * What a platform's webhook body (parsed JSON) means in our call-event contract. Pure and deterministic:
 * no clock, no I/O; the same body always gives deep-equal results (retries and duplicates give the same
 * event ids and contents). Never throws for any JSON value: a body that is not the platform's shape is
 * `malformed` (the reason names the path), one that records nothing is `ignored`.
 */
export function mapPlatformWebhook(platform: WebhookPlatform, body: unknown): WebhookMapping {
  const { mapWebhook } = voicePlatform(platform);
  try {
    return mapWebhook(body);
  } catch (error) {
    if (error instanceof MalformedBody) return { result: 'malformed', reason: error.message };
    throw error;
  }
}
