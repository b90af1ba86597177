/** Pure rules of integrations: which platform a request names, and what a credentials check means. */
import { isVoicePlatform, VOICE_PLATFORMS, type AccountContext, type IntegrationStatus, type ServiceError, type VoicePlatform } from '@voice/contracts';
import type { PlatformFailureKind } from '@voice/voice-platforms';

/** A platform outside the known ones: invalid_parameter with the valid values. */
export function unknownPlatformProblem(platform: unknown): ServiceError | undefined {
  if (isVoicePlatform(platform)) return undefined;
  return {
    code: 'invalid_parameter',
    field: 'platform',
    message: `platform must be one of ${VOICE_PLATFORMS.join(', ')}.`,
    valid_values: [...VOICE_PLATFORMS],
  };
}

/** The account's plan (the admin's voice_platforms) must include the platform. */
export function notEnabledProblem(account: AccountContext, platform: VoicePlatform): ServiceError | undefined {
  if (account.voice_platforms.includes(platform)) return undefined;
  return { code: 'platform_not_enabled', field: 'platform', message: `${platform} is not enabled for this account.` };
}

/** The base URL failed the outbound address check before any call. */
export function refusedBaseUrlProblem(problem: string): ServiceError {
  return { code: 'invalid_platform_credentials', field: 'base_url', message: `base_url is refused: ${problem}.` };
}

/**
 * What the one credentials check at PUT decides:
 * - no failure → saved as verified;
 * - transient (timeout, 5xx, 429, network) → saved as unreachable;
 * - invalid_credentials (401) or rejected (403 and the like) → refused, field api_key, nothing saved;
 * - base_url_refused (internal address, redirect) or not_found (no such API under base_url) → refused, field base_url.
 */
export type CredentialsVerdict = { save: IntegrationStatus } | { refuse: ServiceError };

export function credentialsVerdict(platform: VoicePlatform, failure: { kind: PlatformFailureKind; message: string } | undefined): CredentialsVerdict {
  if (!failure) return { save: 'verified' };
  switch (failure.kind) {
    case 'transient':
      return { save: 'unreachable' };
    case 'invalid_credentials':
    case 'rejected':
      return { refuse: { code: 'invalid_platform_credentials', field: 'api_key', message: `${platform} refused the API key (${failure.message}).` } };
    case 'base_url_refused':
    case 'not_found':
      return { refuse: { code: 'invalid_platform_credentials', field: 'base_url', message: `${platform} API not usable at base_url (${failure.message}).` } };
    default:
      return { save: 'unverified' };
  }
}

/** Why the platform's refusal is news, in words: never the key, nor what the platform answered. */
export function credentialsRefusedReason(platform: string, during: 'sync' | 'reconciliation'): string {
  return during === 'sync'
    ? `${platform} refused the stored API key while an agent was being synced to it.`
    : `${platform} refused the stored API key while its agents were being listed for reconciliation.`;
}
