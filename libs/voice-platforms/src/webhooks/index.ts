/** Platform webhooks → our call events (platforms.md "Webhooks"; the status table at its end). */
export { mapPlatformWebhook } from './map-platform-webhook.js';
export { attributeToAgent, splitForTransport } from './transport.js';
export { classifyEnd, type EndClass, type EndReasonTable } from './end-reasons.js';
export { conversationIdFor } from './values.js';
export { type UnattributedCallEvent, type WebhookMapping, type WebhookPlatform } from './types.js';
