import type { SecretBox } from '@voice/service-kit';

export const INTEGRATIONS_SETTINGS = Symbol('IntegrationsSettings');

export interface IntegrationsSettings {
  /** Seals API keys and webhook secrets (INTEGRATIONS_KEY, INTEGRATIONS_KEY_PREVIOUS). */
  secretBox: SecretBox;
  /** ALLOW_PRIVATE_PLATFORM_URLS: base URLs may point at internal addresses (local simulators, in-network platforms). */
  allowPrivate: boolean;
}

/** Where a secret is bound in the SecretBox: a sealed value copied into another row or field does not open. */
export function secretContext(accountId: string, platform: string, secret: 'api_key' | 'webhook_secret'): string {
  return `${accountId}/${platform}/${secret}`;
}
