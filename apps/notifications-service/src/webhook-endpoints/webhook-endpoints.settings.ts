import type { SecretBox } from '@voice/service-kit';
import type { EndpointUrlPolicy } from './webhook-endpoint.rules.js';

export const ENDPOINTS_SETTINGS = Symbol('ENDPOINTS_SETTINGS');

export interface EndpointsSettings extends EndpointUrlPolicy {
  /** Seals the signing secrets at rest (WEBHOOKS_KEY). */
  secretBox: SecretBox;
}

/** Where a sealed secret belongs: a value copied into another row does not open. */
export const secretContext = (endpointId: string) => `${endpointId}/secret`;
