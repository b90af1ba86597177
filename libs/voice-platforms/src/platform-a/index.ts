/** platform_a ("call object" family): everything that speaks its dialect, as one registry entry. */
import type { VoicePlatformDefinition } from '../voice-platform-definition.js';
import { PLATFORM_A_MANAGEMENT } from './management.js';
import { verifyPlatformAWebhook } from './signature.js';
import { PLATFORM_A_END_REASONS } from './end-reasons.js';
import { mapPlatformA } from './webhook.js';
import { PLATFORM_A_WEBHOOK_SCHEMA } from './webhook-schema.js';

export const PLATFORM_A: VoicePlatformDefinition = {
  platform: 'platform_a',
  management: PLATFORM_A_MANAGEMENT,
  defaultVoiceId: 'pa-voice-default',
  numberPurchase: 'any',
  verifySignature: verifyPlatformAWebhook,
  mapWebhook: mapPlatformA,
  endReasons: PLATFORM_A_END_REASONS,
  webhookSchemaName: 'PlatformAWebhook',
  webhookSchema: PLATFORM_A_WEBHOOK_SCHEMA,
  webhookSignatureDoc:
    'Signed with `X-Platform-A-Signature: v=<Unix ms>,d=<hex HMAC-SHA256(webhook secret, raw body + timestamp digits)>`.',
};

export { PLATFORM_A_AGENT_FIELDS, PLATFORM_A_EXTERNAL_ID_PATH, PLATFORM_A_NUMBER_FIELDS } from './agent-fields.js';
export { platformAStoredFields } from './management.js';
export { PLATFORM_A_SIGNATURE_HEADER, verifyPlatformAWebhook } from './signature.js';
export { PLATFORM_A_END_REASONS } from './end-reasons.js';
export { PLATFORM_A_EVENT_TYPES } from './webhook.js';
