/**
 * The documented webhook-endpoint, recover and data-request bodies are read from the contracts' classes
 * (payloadSchema): the document and the class must give the same verdict on the same bodies, and a refusal
 * must name a field of the body.
 */
import { describe, expect, it } from '@jest/globals';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import {
  findCreateDataRequestProblem, findCreateWebhookEndpointProblem, findRecoverDeliveriesProblem, findUpdateWebhookEndpointProblem,
} from '../../libs/contracts/src/index.js';
import type { ServiceError } from '../../libs/contracts/src/errors.js';
import { componentSchemas } from '../../apps/api-gateway/src/openapi/schemas.js';

// ajv and ajv-formats are CommonJS: under ESM the class sits on `.default`.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as typeof addFormatsModule.default;

const DOCUMENT_ID = 'https://openapi.test/components.json';
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, strictRequired: false });
addFormats(ajv);
ajv.addVocabulary(['components']);
ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: JSON.parse(JSON.stringify(componentSchemas()).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)) } });
const documented = (component: string) => ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${component}` });

// An empty or malformed URL (format: uri) is refused by notifications-service's URL policy, after the class.
const URLS = ['https://crm.example.com/hooks', `https://example.com/${'a'.repeat(2_100)}`, 42, null];
const LISTS = [null, [], ['conversation.ended'], ['conversation.ended', 'conversation.ended'], ['call.ended'], [''], [7], 'agent.created',
  ['agt_5f0c3b8a9d2e4f6a7b8c9d0e'], ['a'.repeat(101)], Array.from({ length: 11 }, (_, i) => `agt_${i}`), Array.from({ length: 101 }, (_, i) => `agt_${i}`)];
const DESCRIPTIONS = [null, '', 'CRM', 'd'.repeat(500), 'd'.repeat(501), '😀'.repeat(500), 5];
const ENABLED = [true, false, null, 'yes'];

/** Every body that differs from a valid one in one field, plus unknown and reserved fields. */
function endpointBodies(base: Record<string, unknown>): unknown[] {
  const bodies: unknown[] = [base, [], 'x', null, { ...base, secret: 'x' }, JSON.parse('{"__proto__": {"x": 1}}')];
  for (const url of URLS) bodies.push({ ...base, url });
  for (const list of LISTS) bodies.push({ ...base, event_types: list }, { ...base, agent_ids: list });
  for (const description of DESCRIPTIONS) bodies.push({ ...base, description });
  for (const enabled of ENABLED) bodies.push({ ...base, enabled });
  return bodies;
}

function agree(component: string, find: (body: unknown) => ServiceError | undefined, bodies: unknown[]): void {
  const schema = documented(component);
  const fields = Object.keys((componentSchemas()[component] as { properties: object }).properties);
  for (const body of bodies) {
    const problem = find(body);
    expect([body, schema(body)]).toEqual([body, problem === undefined]);
    // A refusal names a field of the body (an unknown one) or of the payload (a missing one).
    if (problem?.field !== undefined) expect([...fields, ...Object.keys(body as object)]).toContain(problem.field);
  }
}

describe('request bodies documented from the contracts’ classes', () => {
  it('a webhook endpoint’s create body', () => {
    agree('CreateWebhookEndpointRequest', findCreateWebhookEndpointProblem, [...endpointBodies({ url: 'https://crm.example.com/hooks' }), {}]);
  });

  it('a webhook endpoint’s PATCH body (an empty one is refused in code, as minProperties says)', () => {
    agree('UpdateWebhookEndpointRequest', findUpdateWebhookEndpointProblem, endpointBodies({ enabled: false }));
    expect(documented('UpdateWebhookEndpointRequest')({})).toBe(false);
  });

  it('recover’s body', () => {
    const bodies = [{ since: '2025-03-01' }, { since: '2025-03-01T00:00:00Z' }, { since: '2025-03-01T00:00:00.123+02:00' }, { since: 'yesterday' },
      { since: '2025-03-01 00:00' }, { since: 20250301 }, { since: null }, {}, { since: '2025-03-01', until: '2025-03-02' }, []];
    agree('RecoverDeliveriesRequest', findRecoverDeliveriesProblem, bodies);
  });

  it('a data request’s body', () => {
    const bodies = [{ type: 'erasure', caller_number: '+14155550123' }, { type: 'access', caller_number: '+14155550123' }, { type: 'delete', caller_number: '+14155550123' },
      { caller_number: '+14155550123' }, { type: 'access' }, { type: 'access', caller_number: '4155550123' }, { type: 'access', caller_number: '+1415555012345678' },
      { type: null, caller_number: '+14155550123' }, { type: 'access', caller_number: 14155550123 }, { type: 'access', caller_number: '+14155550123', note: 'x' }, 'x'];
    agree('CreateDataRequestRequest', findCreateDataRequestProblem, bodies);
    expect(findCreateDataRequestProblem({ caller_number: '+14155550123' })).toMatchObject({ code: 'missing_required_field', field: 'type', valid_values: ['erasure', 'access'] });
  });
});
