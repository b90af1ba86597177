import type { SecretBox } from '@voice/service-kit';
import type { EndpointUrlPolicy } from './webhook-endpoint.rules.js';

export const ENDPOINTS_SETTINGS = Symbol('ENDPOINTS_SETTINGS');

export interface EndpointsSettings extends EndpointUrlPolicy {
  /** Seals the signing secrets at rest (WEBHOOKS_KEY). */
  secretBox: SecretBox;
  /** How long a rotated-out secret still signs (24 h; tests shorten it). */
  secretOverlapMs: number;
}

export const DEFAULT_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Where a sealed secret belongs: a value copied into another row does not open. */
export const secretContext = (endpointId: string) => `${endpointId}/secret`;
export const previousSecretContext = (endpointId: string) => `${endpointId}/previous_secret`;
