import type { components } from '../api/schema.generated';

type Endpoint = components['schemas']['WebhookEndpoint'];
type CreateRequest = components['schemas']['CreateWebhookEndpointRequest'];
type UpdateRequest = components['schemas']['UpdateWebhookEndpointRequest'];
type EventType = NonNullable<Endpoint['event_types']>[number];

/**
 * The endpoint form as its controls hold it. `allEventTypes` / `allAgents` stand for the API's null ("every
 * event type", including those added later; "every agent", including agents created later), which a list of
 * everything ticked today would not mean.
 */
export interface EndpointFormValues {
  url: string;
  description: string;
  allEventTypes: boolean;
  eventTypes: EventType[];
  allAgents: boolean;
  agentIds: string[];
  enabled: boolean;
}

/** The request fields the form has a control for: an error naming another field is shown for the whole form. */
export const ENDPOINT_FORM_FIELDS = ['url', 'description', 'event_types', 'agent_ids', 'enabled'] as const;
export type EndpointFormField = (typeof ENDPOINT_FORM_FIELDS)[number];
export type EndpointFormErrors = Partial<Record<EndpointFormField, string>>;

/** A new endpoint: every event type, every agent, enabled (the API's own defaults). */
export function emptyEndpointForm(): EndpointFormValues {
  return { url: '', description: '', allEventTypes: true, eventTypes: [], allAgents: true, agentIds: [], enabled: true };
}

export function endpointFormOf(endpoint: Endpoint): EndpointFormValues {
  return {
    url: endpoint.url,
    description: endpoint.description ?? '',
    allEventTypes: endpoint.event_types === null,
    eventTypes: endpoint.event_types ?? [],
    allAgents: endpoint.agent_ids === null,
    agentIds: endpoint.agent_ids ?? [],
    enabled: endpoint.enabled,
  };
}

/** What the form's choices mean in the API's terms (null: all), or the mistake named at its control before anything is sent. */
function requestFields(form: EndpointFormValues): { fields?: Required<Omit<CreateRequest, 'enabled'>>; errors: EndpointFormErrors } {
  const errors: EndpointFormErrors = {};
  if (!form.url.trim()) errors.url = 'Enter the URL the events are sent to.';
  if (!form.allEventTypes && form.eventTypes.length === 0) errors.event_types = 'Tick at least one event type, or choose all.';
  if (!form.allAgents && form.agentIds.length === 0) errors.agent_ids = 'Tick at least one agent, or choose all.';
  if (Object.keys(errors).length) return { errors };
  return {
    fields: {
      url: form.url.trim(),
      description: form.description.trim() || null,
      event_types: form.allEventTypes ? null : [...form.eventTypes],
      agent_ids: form.allAgents ? null : [...form.agentIds],
    },
    errors,
  };
}

/** POST /v1/webhook-endpoints: an empty description and "all" choices are left out, so the API's defaults apply. */
export function createEndpointBody(form: EndpointFormValues): { body?: CreateRequest; errors: EndpointFormErrors } {
  const { fields, errors } = requestFields(form);
  if (!fields) return { errors };
  const body: CreateRequest = { url: fields.url, enabled: form.enabled };
  if (fields.description !== null) body.description = fields.description;
  if (fields.event_types !== null) body.event_types = fields.event_types;
  if (fields.agent_ids !== null) body.agent_ids = fields.agent_ids;
  return { body, errors };
}

const sameSet = (a: readonly string[] | null, b: readonly string[] | null) =>
  a === null || b === null ? a === b : a.length === b.length && a.every((x) => b.includes(x));

/**
 * PATCH /v1/webhook-endpoints/{id}: only what changed, so a concurrent change to another field survives.
 * `body` is empty when nothing changed.
 */
export function endpointChanges(endpoint: Endpoint, form: EndpointFormValues): { body?: UpdateRequest; errors: EndpointFormErrors } {
  const { fields, errors } = requestFields(form);
  if (!fields) return { errors };
  const body: UpdateRequest = {};
  if (fields.url !== endpoint.url) body.url = fields.url;
  if (fields.description !== endpoint.description) body.description = fields.description;
  if (!sameSet(fields.event_types, endpoint.event_types)) body.event_types = fields.event_types;
  if (!sameSet(fields.agent_ids, endpoint.agent_ids)) body.agent_ids = fields.agent_ids;
  if (form.enabled !== endpoint.enabled) body.enabled = form.enabled;
  return { body, errors };
}

/**
 * The recover form's "since": a `datetime-local` value read as UTC (every time in the console is UTC), as the
 * ISO instant the API takes; undefined when it is not a time.
 */
export function recoverSinceOf(value: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(\.\d{1,3})?)?$/.exec(value.trim());
  if (!match) return undefined;
  const date = new Date(`${match[1]}T${match[2]}${match[3] ?? ':00'}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The recover form's first value: a day ago, in the `datetime-local` format (UTC, to the minute). */
export function defaultRecoverSince(now = Date.now()): string {
  return new Date(now - 86_400_000).toISOString().slice(0, 16);
}
