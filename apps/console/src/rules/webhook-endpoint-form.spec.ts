import { describe, expect, it } from '@jest/globals';
import type { components } from '../api/schema.generated';
import { attemptOutcome, filterSummary } from '../presentation/webhooks';
import { createEndpointBody, defaultRecoverSince, emptyEndpointForm, endpointChanges, endpointFormOf, recoverSinceOf } from './webhook-endpoint-form';

type Endpoint = components['schemas']['WebhookEndpoint'];

const endpoint: Endpoint = {
  id: 'we_1', url: 'https://crm.example.com/hooks', description: 'CRM', event_types: ['conversation.ended'], agent_ids: null, enabled: true,
  status: 'active', disabled_reason: null, secret_hint: 'abcd', deliveries_last_24h: { succeeded: 3, failed: 1 },
  created_at: '2026-11-01T00:00:00Z', updated_at: '2026-11-01T00:00:00Z',
};

describe('createEndpointBody', () => {
  it('sends the URL and enabled; "all" choices and an empty description are left out so the API defaults apply', () => {
    expect(createEndpointBody({ ...emptyEndpointForm(), url: ' http://127.0.0.1:4030/hooks ' }).body).toEqual({ url: 'http://127.0.0.1:4030/hooks', enabled: true });
  });
  it('sends the ticked event types and agents when not all', () => {
    const { body } = createEndpointBody({ ...emptyEndpointForm(), url: 'https://x.test', description: 'Ops', allEventTypes: false, eventTypes: ['agent.created'], allAgents: false, agentIds: ['agt_1'], enabled: false });
    expect(body).toEqual({ url: 'https://x.test', description: 'Ops', event_types: ['agent.created'], agent_ids: ['agt_1'], enabled: false });
  });
  it('names a missing URL and an empty "only these" choice at their controls before sending anything', () => {
    const { body, errors } = createEndpointBody({ ...emptyEndpointForm(), allEventTypes: false, allAgents: false });
    expect(body).toBeUndefined();
    expect(Object.keys(errors).sort()).toEqual(['agent_ids', 'event_types', 'url']);
  });
});

describe('endpointChanges', () => {
  it('sends nothing when nothing changed, whatever the order of the ticked types', () => {
    const form = endpointFormOf({ ...endpoint, event_types: ['conversation.ended', 'agent.created'] });
    expect(endpointChanges({ ...endpoint, event_types: ['agent.created', 'conversation.ended'] }, form).body).toEqual({});
  });
  it('sends only what changed: all event types is null, a cleared description is null', () => {
    const form = { ...endpointFormOf(endpoint), allEventTypes: true, description: ' ', enabled: false };
    expect(endpointChanges(endpoint, form).body).toEqual({ event_types: null, description: null, enabled: false });
  });
  it('sends an agent filter chosen for an endpoint that had none', () => {
    expect(endpointChanges(endpoint, { ...endpointFormOf(endpoint), allAgents: false, agentIds: ['agt_2'] }).body).toEqual({ agent_ids: ['agt_2'] });
  });
});

describe('recoverSinceOf', () => {
  it('reads the datetime-local value as UTC', () => {
    expect(recoverSinceOf('2026-11-26T09:30')).toBe('2026-11-26T09:30:00.000Z');
    expect(recoverSinceOf('2026-11-26T09:30:15')).toBe('2026-11-26T09:30:15.000Z');
  });
  it('refuses what is not a time', () => {
    expect(recoverSinceOf('')).toBeUndefined();
    expect(recoverSinceOf('yesterday')).toBeUndefined();
    expect(recoverSinceOf('2026-13-40T99:99')).toBeUndefined();
  });
  it('starts a day back, to the minute', () => {
    expect(defaultRecoverSince(Date.parse('2026-11-27T10:15:42Z'))).toBe('2026-11-26T10:15');
  });
});

describe('webhook presentation', () => {
  it('says what an attempt came to', () => {
    expect(attemptOutcome({ status_code: 204, error: null, duration_ms: 12 })).toBe('HTTP 204 in 12 ms');
    expect(attemptOutcome({ status_code: null, error: 'timeout', duration_ms: 15000 })).toBe('timeout after 15000 ms');
  });
  it('says "all" for a null filter, else lists it', () => {
    expect(filterSummary(null, 'All event types')).toBe('All event types');
    expect(filterSummary(['agt_1'], 'All agents', (id) => (id === 'agt_1' ? 'Front Desk' : id))).toBe('Front Desk');
  });
});
