import {
  AGENT_EXAMPLE,
  CONVERSATION_DETAIL_EXAMPLE,
  CONVERSATIONS_PAGE_EXAMPLE,
  CREATED_API_KEY_EXAMPLE,
  HEALTH_UNAVAILABLE_EXAMPLE,
  listExample,
  META_EXAMPLE,
  REQUEST_EXAMPLES,
  type NamedExample,
  type PageExample,
} from './examples.js';
import { envelopedComponent } from './route-docs.js';

/*
 * Examples at the operation level (what the docs page shows and "Try it out"
 * pre-fills): a value for every parameter, named examples for every request
 * body, and an enveloped example for every success answer. Response and
 * request examples are assembled from the components' own `examples`, so one
 * example is written once; an operation that declares its own keeps it.
 */

/** By `<path> <name>` first, then by name alone: each a value a client would really send. */
const PARAMETER_EXAMPLES: Record<string, unknown> = {
  '/v1/agents/{id} id': AGENT_EXAMPLE.id,
  '/v1/conversations/{id} id': CONVERSATION_DETAIL_EXAMPLE.id,
  '/v1/conversations/{id}/transcript id': CONVERSATION_DETAIL_EXAMPLE.id,
  '/v1/api-keys/{id} id': CREATED_API_KEY_EXAMPLE.id,
  '/docs/{asset} asset': 'swagger-initializer.js',
  integration_id: 'int_3b9f1c7e2a5d8f0c4e6a1b2d',
  '/v1/webhook-deliveries/{id} id': 'whd_0c1d2e3f4a5b6c7d8e9f0a1b',
  '/v1/webhook-deliveries/{id}/replay id': 'whd_0c1d2e3f4a5b6c7d8e9f0a1b',
  '/v1/webhook-deliveries outcome': 'ignored',
  '/v1/data-requests/{id} id': 'dr_0c1d2e3f4a5b6c7d8e9f0a1b',
  '/v1/data-requests/{id}/download id': 'dr_0c1d2e3f4a5b6c7d8e9f0a1b',
  '/v1/webhook-endpoints/{id} id': 'we_5f0c3b8a9d2e4f6a7b8c9d0e',
  '/v1/webhook-endpoints/{id}/secret id': 'we_5f0c3b8a9d2e4f6a7b8c9d0e',
  '/v1/webhook-endpoints/{id}/deliveries id': 'we_5f0c3b8a9d2e4f6a7b8c9d0e',
  '/v1/webhook-endpoints/{id}/deliveries/{delivery_id} id': 'we_5f0c3b8a9d2e4f6a7b8c9d0e',
  '/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/resend id': 'we_5f0c3b8a9d2e4f6a7b8c9d0e',
  '/v1/webhook-endpoints/{id}/recover id': 'we_5f0c3b8a9d2e4f6a7b8c9d0e',
  '/v1/webhook-endpoints/{id}/rotate-secret id': 'we_5f0c3b8a9d2e4f6a7b8c9d0e',
  '/v1/webhook-endpoints/{id}/test id': 'we_5f0c3b8a9d2e4f6a7b8c9d0e',
  '/v1/webhook-endpoints/{id}/deliveries status': 'failed',
  delivery_id: 'dlv_0a1b2c3d4e5f6a7b8c9d0e1f',
  '/v1/events/{id} id': 'evt_9f8e7d6c5b4a39281706f5e4',
  '/v1/events type': 'agent.created',
  '/v1/events conversation_id': 'call_01HZX3',
  created_after: '2025-03-01T00:00:00Z',
  created_before: '2025-03-02T00:00:00Z',
  conversation_id: 'call_01HZX3',
  '/v1/agents status': 'paused',
  '/v1/agents search': 'front',
  '/v1/conversations status': 'completed',
  '/v1/conversations search': 'cleaning',
  '/v1/conversations/stats status': 'completed',
  '/v1/conversations/stats search': 'cleaning',
  bucket: 'day',
  page: 1,
  per_page: 25,
  voice_platform: 'platform_a',
  platform: 'platform_a',
  agent_id: AGENT_EXAMPLE.id,
  sentiment: 'positive',
  outcome: 'appointment_booked',
  caller: '+14155550123',
  min_duration: 60,
  max_duration: 600,
  min_cost: 0.05,
  max_cost: 1.5,
  start_date: '2025-01-01T00:00:00Z',
  end_date: '2025-01-31T23:59:59Z',
  has_recording: 'true',
  has_transcript: 'true',
  topic: 'booking',
  sort_by: 'duration',
  sort_order: 'desc',
  format: 'srt',
  Accept: 'text/vtt',
  'If-Match': '"3"',
  'Idempotency-Key': '5f1d7c1e-2b0a-4c5e-9a59-6f1b8d3e2a47',
};

/** The page a list's example shows, when not page 1 of its examples. */
const LIST_PAGES: Record<string, PageExample> = { '/v1/conversations': CONVERSATIONS_PAGE_EXAMPLE };

/** A success body's data when it is not the component's first example. */
const DATA_BY_STATUS: Record<string, unknown> = { 'Health 503': HEALTH_UNAVAILABLE_EXAMPLE };

type Schemas = Record<string, { examples?: unknown[] }>;
type Operation = {
  parameters?: Array<{ name: string; example?: unknown; examples?: unknown; schema?: { examples?: unknown[] } }>;
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};
type Media = { schema?: { $ref?: string; oneOf?: Array<{ $ref?: string }> }; example?: unknown; examples?: Record<string, NamedExample> };

const hasExample = (holder: { example?: unknown; examples?: unknown }) => holder.example !== undefined || holder.examples !== undefined;
const componentOf = (ref: string | undefined) => (ref?.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : undefined);

function parameterExample(path: string, parameter: NonNullable<Operation['parameters']>[number]): unknown {
  const specific = `${path} ${parameter.name}`;
  if (Object.hasOwn(PARAMETER_EXAMPLES, specific)) return PARAMETER_EXAMPLES[specific];
  if (Object.hasOwn(PARAMETER_EXAMPLES, parameter.name)) return PARAMETER_EXAMPLES[parameter.name];
  return parameter.schema?.examples?.[0];
}

/** Named examples of a request body: those of each component it accepts (one, or the alternatives of a oneOf). */
function requestExamples(media: Media, schemas: Schemas): Record<string, NamedExample> | undefined {
  const refs = media.schema?.oneOf ? media.schema.oneOf.map((s) => s.$ref) : [media.schema?.$ref];
  const named: Record<string, NamedExample> = {};
  for (const component of refs.map(componentOf)) {
    if (!component) continue;
    const own = (REQUEST_EXAMPLES as Record<string, Record<string, NamedExample>>)[component];
    if (own) Object.assign(named, own);
    else for (const [i, value] of (schemas[component]?.examples ?? []).entries()) named[`${component}${i + 1}`] = { summary: component, value };
  }
  return Object.keys(named).length > 0 ? named : undefined;
}

function responseExample(path: string, status: string, media: Media, schemas: Schemas): unknown {
  const enveloped = envelopedComponent(media.schema);
  if (!enveloped) return undefined;
  const examples = schemas[enveloped.component]?.examples;
  if (!examples?.length) return undefined;
  // Links are absolute URLs: a path's parameters take their examples.
  const concrete = path.replace(/\{([^}]+)\}/g, (_, name: string) => String(PARAMETER_EXAMPLES[`${path} ${name}`] ?? PARAMETER_EXAMPLES[name] ?? name));
  if (enveloped.list) return listExample(concrete, examples, LIST_PAGES[path]);
  const data = DATA_BY_STATUS[`${enveloped.component} ${status}`] ?? examples[0];
  return { data, meta: META_EXAMPLE };
}

/** Adds the operation-level examples to the document's paths, in place. */
export function addOperationExamples(paths: Record<string, Record<string, Operation>>, schemas: Schemas): void {
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of Object.values(item)) {
      for (const parameter of operation.parameters ?? []) {
        if (hasExample(parameter)) continue;
        const example = parameterExample(path, parameter);
        if (example !== undefined) parameter.example = example;
      }
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        if (hasExample(media)) continue;
        const examples = requestExamples(media, schemas);
        if (examples) media.examples = examples;
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const media of Object.values(response.content ?? {})) {
          if (hasExample(media)) continue;
          const example = responseExample(path, status, media, schemas);
          if (example !== undefined) media.example = example;
        }
      }
    }
  }
}
