/** platform_b ("message envelope" family): everything that speaks its dialect, as one registry entry. */
import type { VoicePlatformDefinition } from '../voice-platform-definition.js';
import { PLATFORM_B_MANAGEMENT } from './management.js';
import { verifyPlatformBWebhook } from './signature.js';
import { PLATFORM_B_END_REASONS } from './end-reasons.js';
import { mapPlatformB } from './webhook.js';
import { PLATFORM_B_WEBHOOK_SCHEMA } from './webhook-schema.js';

export const PLATFORM_B: VoicePlatformDefinition = {
  platform: 'platform_b',
  management: PLATFORM_B_MANAGEMENT,
  defaultVoiceId: 'pb-voice-default',
  numberPurchase: 'area_code_required',
  verifySignature: verifyPlatformBWebhook,
  mapWebhook: mapPlatformB,
  endReasons: PLATFORM_B_END_REASONS,
  webhookSchemaName: 'PlatformBWebhook',
  webhookSchema: PLATFORM_B_WEBHOOK_SCHEMA,
  webhookSignatureDoc:
    'Signed with `X-Timestamp: <Unix s>` and `X-Signature: <hex HMAC-SHA256(webhook secret, "<X-Timestamp>.<raw body>")>`.',
};

export { PLATFORM_B_AGENT_FIELDS, PLATFORM_B_EXTERNAL_ID_PATH, PLATFORM_B_NAME_LIMIT, PLATFORM_B_NUMBER_FIELDS, platformBLanguage, platformBName } from './agent-fields.js';
export { platformBStoredFields } from './management.js';
export { PLATFORM_B_SIGNATURE_HEADER, PLATFORM_B_TIMESTAMP_HEADER, verifyPlatformBWebhook } from './signature.js';
export { PLATFORM_B_END_REASONS } from './end-reasons.js';
export { PLATFORM_B_MESSAGE_TYPES } from './webhook.js';
