/** What one voice platform brings: each part speaks its dialect, written in the platform's folder (platform-<name>/). */
import type { VoicePlatform } from '@voice/contracts';
import type { ManagementDialect } from './management-adapter.js';
import type { WebhookSignatureCheck } from './webhook-signature.js';
import type { EndReasonTable } from './webhooks/end-reasons.js';
import type { JsonSchema } from './webhooks/json-schema.js';
import type { WebhookMapping } from './webhooks/types.js';

/** Where the platform sells a number: anywhere, or only in an area the buyer names. */
export type NumberPurchase = 'any' | 'area_code_required';

export interface VoicePlatformDefinition {
  readonly platform: VoicePlatform;
  /** Its management API (agents, numbers, listings), for the generic ManagementAdapter. */
  readonly management: ManagementDialect;
  /** The voice the platform itself uses when none is named: an agent without a voice id gets it. */
  readonly defaultVoiceId: string;
  /** Whether buying a number needs an area code. */
  readonly numberPurchase: NumberPurchase;
  /** Its webhook signature, checked over the raw body before anything is read. */
  readonly verifySignature: WebhookSignatureCheck;
  /** Its webhook body (parsed JSON) in our call-event contract; throws MalformedBody for a body not of its shape. */
  readonly mapWebhook: (body: unknown) => WebhookMapping;
  /** How its end reasons map onto our conversation status. */
  readonly endReasons: EndReasonTable;
  /** Its webhook body as the OpenAPI document shows it, under this component name. */
  readonly webhookSchemaName: string;
  readonly webhookSchema: JsonSchema;
  /** How its webhook deliveries are signed, as the OpenAPI document tells integrators (Markdown). */
  readonly webhookSignatureDoc: string;
}
