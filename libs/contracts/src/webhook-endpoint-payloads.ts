/**
 * Request payloads of the webhook endpoints API — POST and PATCH /v1/webhook-endpoints, POST …/{id}/recover — as
 * class-validator classes: notifications-service validates bodies with them (findProblem, compiled once) and the
 * gateway's OpenAPI document is read from them (payloadSchema). What depends on the service's settings or clock is
 * checked by notifications-service after these: the URL's policy (scheme, credentials, internal addresses) and a
 * `since` in the future.
 *
 * Decisions the interface leaves open:
 * - `null` resets `event_types` and `agent_ids` to "all" and `description` to none; `enabled: null` is refused.
 * - A type or agent id listed twice is kept once (not refused).
 * - `since` is an ISO 8601 date or instant; a date alone is midnight UTC.
 */
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsIn, IsNotEmpty, IsOptional, IsString, Matches, ValidateIf, type ValidationArguments } from 'class-validator';
import type { ServiceError } from './errors.js';
import { OUTBOUND_EVENT_TYPES, WEBHOOK_ENDPOINT_LIMITS, type OutboundEventType } from './outbound-events.js';
import { allOf, findProblem, MaxChars, saying } from './validation.js';

/** The longest agent id an endpoint may name: ids are far shorter (`agt_` and 24 hex digits), this bounds the stored list. */
export const ENDPOINT_AGENT_ID_MAX_LENGTH = 100;

/** An ISO 8601 date (`2025-01-31`) or instant with an offset (`2025-01-31T14:05:00Z`). */
export const ISO_DATE_OR_INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/;

const NON_EMPTY_STRINGS = 'must be an array of non-empty strings.';

/** The first listed type that is not an event type, named in the refusal. */
function unknownEventTypeMessage({ property, value }: ValidationArguments): string {
  const items: unknown[] = Array.isArray(value) ? value : [value];
  const unknown = items.find((item) => !(OUTBOUND_EVENT_TYPES as readonly unknown[]).includes(item));
  return typeof unknown === 'string' && unknown !== '' ? `${unknown} is not an event type.` : `${property} ${NON_EMPTY_STRINGS}`;
}

const UrlRules = allOf(
  IsString(saying('must be an absolute https URL.')),
  MaxChars(WEBHOOK_ENDPOINT_LIMITS.urlLength, saying(`must be at most ${WEBHOOK_ENDPOINT_LIMITS.urlLength} characters.`)),
);
const DescriptionRules = allOf(
  IsOptional(),
  IsString(saying('must be a string or null.')),
  MaxChars(WEBHOOK_ENDPOINT_LIMITS.description, saying(`must be at most ${WEBHOOK_ENDPOINT_LIMITS.description} characters.`)),
);
const EventTypesRules = allOf(
  IsOptional(),
  IsArray(saying(NON_EMPTY_STRINGS)),
  ArrayMinSize(1, saying(`must hold 1 to ${OUTBOUND_EVENT_TYPES.length} items (omit it or send null for all).`)),
  ArrayMaxSize(OUTBOUND_EVENT_TYPES.length, saying(`must hold 1 to ${OUTBOUND_EVENT_TYPES.length} items (omit it or send null for all).`)),
  IsIn(OUTBOUND_EVENT_TYPES, { each: true, message: unknownEventTypeMessage, context: { valid_values: OUTBOUND_EVENT_TYPES } }),
);
const AgentIdsRules = allOf(
  IsOptional(),
  IsArray(saying(NON_EMPTY_STRINGS)),
  IsString({ each: true, ...saying(NON_EMPTY_STRINGS) }),
  IsNotEmpty({ each: true, ...saying(NON_EMPTY_STRINGS) }),
  MaxChars(ENDPOINT_AGENT_ID_MAX_LENGTH, { each: true, ...saying(`must hold agent ids of at most ${ENDPOINT_AGENT_ID_MAX_LENGTH} characters.`) }),
  ArrayMinSize(1, saying(`must hold 1 to ${WEBHOOK_ENDPOINT_LIMITS.agentIds} items (omit it or send null for all).`)),
  ArrayMaxSize(WEBHOOK_ENDPOINT_LIMITS.agentIds, saying(`must hold 1 to ${WEBHOOK_ENDPOINT_LIMITS.agentIds} items (omit it or send null for all).`)),
);
/** Sent (not absent): then null is refused too. */
const sent = (property: string) => ValidateIf((o: Record<string, unknown>) => o[property] !== undefined);
const EnabledRules = IsBoolean(saying('must be true or false.'));

export class CreateWebhookEndpointPayload {
  @IsDefined(saying('is required.')) @UrlRules url!: string;
  @DescriptionRules description?: string | null;
  @EventTypesRules event_types?: OutboundEventType[] | null;
  @AgentIdsRules agent_ids?: string[] | null;
  @sent('enabled') @EnabledRules enabled?: boolean;
}

export class UpdateWebhookEndpointPayload {
  @sent('url') @UrlRules url?: string;
  @DescriptionRules description?: string | null;
  @EventTypesRules event_types?: OutboundEventType[] | null;
  @AgentIdsRules agent_ids?: string[] | null;
  @sent('enabled') @EnabledRules enabled?: boolean;
}

export class RecoverDeliveriesPayload {
  @IsDefined({ ...saying('is required.'), context: { code: 'missing_required_field' } })
  @Matches(ISO_DATE_OR_INSTANT_PATTERN, {
    ...saying('must be an ISO 8601 date or timestamp, e.g. 2025-01-31 or 2025-01-31T14:05:00Z.'),
    context: { code: 'invalid_date_format' },
  })
  since!: string;
}

export function findCreateWebhookEndpointProblem(body: unknown): ServiceError | undefined {
  return findProblem(CreateWebhookEndpointPayload, body);
}

export function findUpdateWebhookEndpointProblem(body: unknown): ServiceError | undefined {
  return findProblem(UpdateWebhookEndpointPayload, body);
}

export function findRecoverDeliveriesProblem(body: unknown): ServiceError | undefined {
  return findProblem(RecoverDeliveriesPayload, body);
}
