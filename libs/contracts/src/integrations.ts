/**
 * Account integrations: an account's credentials for one voice platform
 * (PUT/GET/DELETE /v1/integrations/{platform}), the RPC payloads between the
 * gateway and agents-service, and the request body as a class-validator class.
 *
 * Decisions:
 * - `api_key` and `webhook_secret` are required non-empty strings of at most
 *   500 characters; they are stored only encrypted and never returned (a hint
 *   of their last four characters is, for secrets of 16 characters or more).
 * - Both are visible ASCII only (CREDENTIAL_PATTERN). The key travels in
 *   `Authorization: Bearer <api_key>`: a control character, CR/LF or a character
 *   above U+00FF cannot be sent at all, Latin-1 letters reach the platform as
 *   bytes it may decode differently, and surrounding spaces are trimmed by every
 *   HTTP parser. The secret is the HMAC key the platform signs with, copied from
 *   its dashboard: whitespace or a control character there is a copy-paste
 *   accident that would fail every delivery's signature, and a non-ASCII key's
 *   bytes depend on an encoding the platforms do not document.
 * - `base_url` is optional: an absolute http(s) URL, defaulting to the
 *   platform's public API (DEFAULT_PLATFORM_BASE_URLS, the one place they live).
 *   It carries no whitespace or control character (URL_TEXT_PATTERN): the URL
 *   parser silently drops tabs and line breaks, so the address stored and shown
 *   would not be the one called.
 * - PUT creates or replaces; a replacement keeps the integration's id, so its
 *   webhook URL stays the same.
 */
import { IsDefined, IsNotEmpty, IsOptional, IsString, Matches, ValidateIf, registerDecorator, type ValidationArguments } from 'class-validator';
import { Type, type Static } from '@sinclair/typebox';
import { VOICE_PLATFORMS, type VoicePlatform } from './agents.js';
import type { AccountContext } from './rpc.js';
import type { ServiceError } from './errors.js';
import { findProblem, MaxChars, saying } from './validation.js';
import { ClosedObject, DateTime, Nullable, StringEnum } from './view-schema.js';

/** The platform API used when a PUT gives no base_url. */
export const DEFAULT_PLATFORM_BASE_URLS: Readonly<Record<VoicePlatform, string>> = {
  platform_a: 'https://api.platform-a.example/',
  platform_b: 'https://api.platform-b.example/',
};

/**
 * - verified: the platform accepted the key when it was saved.
 * - invalid_credentials: the platform refused the key later on (a PUT with a refused key saves nothing).
 * - unreachable: the platform could not be reached when it was saved (timeout, 5xx, network); saved unverified.
 * - unverified: not checked yet.
 */
export const INTEGRATION_STATUSES = ['verified', 'invalid_credentials', 'unreachable', 'unverified'] as const;
export type IntegrationStatus = (typeof INTEGRATION_STATUSES)[number];

export const INTEGRATION_LIMITS = { secret: 500, baseUrl: 2_000 } as const;

/** The characters of `api_key` and `webhook_secret`: visible ASCII, U+0021 to U+007E (no space). */
export const CREDENTIAL_PATTERN = /^[\x21-\x7E]+$/;
/** `base_url` has no C0 or C1 control character, space or DEL; anything else is the URL parser's to judge. */
export const URL_TEXT_PATTERN = /^[^\x00-\x20\x7F-\x9F]+$/;

export const IntegrationsRpc = {
  configure: 'integrations.configure',
  get: 'integrations.get',
  list: 'integrations.list',
  remove: 'integrations.remove',
  /**
   * The webhook secret of an integration, by the integration id in its webhook URL: the gateway verifies
   * a delivery's signature over the raw body, which can be far larger than a bus message.
   */
  webhookSecret: 'integrations.webhook-secret',
} as const;

export interface WebhookSecretRequest {
  integration_id: string;
}
export interface WebhookSecretReply {
  /** null when no integration has this id (the gateway then answers exactly as for a wrong signature). */
  integration: { id: string; account_id: string; platform: VoicePlatform; webhook_secret: string } | null;
}

/** Signed-webhook deliveries refused for an integration over the last 24 hours (never stored with their body). */
export const WebhookRejectionsSchema = ClosedObject({
  rejected_deliveries_24h: Type.Integer({
    minimum: 0,
    description: 'Deliveries to the webhook URL refused over the last 24 hours (wrong or missing signature, stale timestamp). Their bodies are never stored.',
  }),
  last_rejection: Nullable(ClosedObject({ reason: StringEnum(['invalid_signature', 'stale_timestamp']), at: DateTime() })),
});
export type WebhookRejections = Static<typeof WebhookRejectionsSchema>;
export const NO_WEBHOOK_REJECTIONS: WebhookRejections = { rejected_deliveries_24h: 0, last_rejection: null };

/** What agents-service answers; the gateway adds webhook_url (it knows the public address). */
export interface StoredIntegration {
  id: string;
  platform: VoicePlatform;
  base_url: string;
  api_key_hint: string;
  webhook_secret_hint: string;
  status: IntegrationStatus;
  created_at: string;
  updated_at: string;
}

/** The integration as the API shows it. Secrets are never part of it. */
/** An account's integration as the API returns it: never its secrets. */
export const IntegrationViewSchema = ClosedObject(
  {
    id: Type.String({ description: 'The integration id: the last segment of its webhook URL.' }),
    platform: StringEnum(VOICE_PLATFORMS),
    base_url: Type.String({ format: 'uri', description: 'The platform API the credentials are used with.' }),
    webhook_url: Type.String({
      format: 'uri',
      description: 'Where the platform sends call events for this integration: PUBLIC_URL/v1/webhooks/{platform}/{integration id}. Stable across replacements.',
    }),
    api_key_hint: Type.String({ description: 'The last 4 characters of the API key; empty for keys under 16 characters.' }),
    webhook_secret_hint: Type.String({ description: 'The last 4 characters of the webhook secret; empty for secrets under 16 characters.' }),
    status: StringEnum(INTEGRATION_STATUSES, {
      description:
        'verified: the platform accepted the key when saved; unreachable: the platform could not be reached when saved; invalid_credentials: the platform refused the key later; unverified: not checked yet.',
    }),
    created_at: DateTime(),
    updated_at: DateTime(),
    ...WebhookRejectionsSchema.properties,
  },
  { description: 'An account’s credentials for one voice platform, without the secrets.' },
);
export type IntegrationView = Static<typeof IntegrationViewSchema>;

export interface ConfigureIntegrationRequest {
  account: AccountContext;
  /**
   * The gateway's PUBLIC_URL: agents-service stores the integration's webhook URL
   * (integrationWebhookUrl) so that the agents it syncs tell the platform where to deliver.
   */
  public_url: string;
  /** Unchecked path segment; the service validates it. */
  platform: string;
  /** The untouched JSON body; the service validates it. */
  body: unknown;
}
export interface GetIntegrationRequest {
  account_id: string;
  platform: string;
}
export interface ListIntegrationsRequest {
  account_id: string;
}
export interface RemoveIntegrationRequest {
  account_id: string;
  platform: string;
}
export interface IntegrationReply {
  integration: StoredIntegration;
}
export interface IntegrationListReply {
  items: StoredIntegration[];
}

/** The webhook address a platform is given for an integration. */
export function integrationWebhookUrl(publicUrl: string, platform: string, integrationId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/v1/webhooks/${encodeURIComponent(platform)}/${encodeURIComponent(integrationId)}`;
}

export function toIntegrationView(record: StoredIntegration, publicUrl: string, rejections: WebhookRejections = NO_WEBHOOK_REJECTIONS): IntegrationView {
  return {
    id: record.id,
    platform: record.platform,
    base_url: record.base_url,
    webhook_url: integrationWebhookUrl(publicUrl, record.platform, record.id),
    api_key_hint: record.api_key_hint,
    webhook_secret_hint: record.webhook_secret_hint,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
    rejected_deliveries_24h: rejections.rejected_deliveries_24h,
    last_rejection: rejections.last_rejection,
  };
}


function IsHttpUrl() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isHttpUrl',
      target: target.constructor,
      propertyName,
      options: saying('must be an absolute http or https URL such as https://api.platform-a.example/.'),
      validator: {
        validate(value: unknown) {
          if (typeof value !== 'string') return false;
          try {
            const url = new URL(value);
            return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
          } catch {
            return false;
          }
        },
      },
    });
}

const CREDENTIAL_CHARACTERS = 'may contain only visible ASCII characters (! to ~): no spaces, line breaks, control characters or non-ASCII letters.';

export class ConfigureIntegrationPayload {
  @IsDefined({ ...saying('is required.'), context: { code: 'missing_required_field' } })
  @IsString(saying('must be a string.'))
  @Matches(CREDENTIAL_PATTERN, saying(CREDENTIAL_CHARACTERS))
  @IsNotEmpty(saying('must not be empty.'))
  @MaxChars(INTEGRATION_LIMITS.secret, saying(`must be at most ${INTEGRATION_LIMITS.secret} characters.`))
  api_key!: string;

  @IsDefined({ ...saying('is required.'), context: { code: 'missing_required_field' } })
  @IsString(saying('must be a string.'))
  @Matches(CREDENTIAL_PATTERN, saying(CREDENTIAL_CHARACTERS))
  @IsNotEmpty(saying('must not be empty.'))
  @MaxChars(INTEGRATION_LIMITS.secret, saying(`must be at most ${INTEGRATION_LIMITS.secret} characters.`))
  webhook_secret!: string;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString(saying('must be a string.'))
  @Matches(URL_TEXT_PATTERN, saying('must not contain spaces, line breaks or other control characters.'))
  @MaxChars(INTEGRATION_LIMITS.baseUrl, saying(`must be at most ${INTEGRATION_LIMITS.baseUrl} characters.`))
  @IsHttpUrl()
  base_url?: string | null;
}

export function findConfigureIntegrationProblem(body: unknown): ServiceError | undefined {
  return findProblem(ConfigureIntegrationPayload, body);
}
