/** The voice platforms: one folder per platform (platform-<name>/), the port the services use, and the registry. */
export * from './voice-platform.port.js';
export * from './platform-call-failed.js';
export * from './retry-delay.js';
export * from './platform-http.js';
export * from './agent-fields.js';
export * from './management-adapter.js';
export * from './voice-platform-definition.js';
export * from './registry.js';
export * from './webhook-signature.js';
export * from './webhooks/index.js';
export type { JsonSchema } from './webhooks/json-schema.js';
export * from './platform-a/index.js';
export * from './platform-b/index.js';
