import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiClient, type ApiClient } from './support/http.js';
import { configureIntegrations } from './support/platforms.js';
import { startLocalSystem, type LocalSystem } from './support/system.js';

/**
 * One-process mode (what `npm start` does without NATS_URL): the same gateway
 * over the in-process bus and streams. Checks the gateway's wiring in that
 * mode end to end; the rules themselves are covered over NATS elsewhere.
 */
describe('api-gateway in one-process mode', () => {
  let local: LocalSystem;
  let baseUrl: string;
  let api: ApiClient;

  beforeAll(async () => {
    local = await startLocalSystem('gwlocal');
    baseUrl = local.baseUrl;
    const account = await apiClient(baseUrl, local.adminToken).post('/v1/admin/accounts', {
      name: 'Local', plan: 'starter', agent_limit: 5, voice_platforms: ['platform_a'],
    });
    expect(account.status).toBe(201);
    api = apiClient(baseUrl, account.body.data.api_key);
    await configureIntegrations(api, local.platforms, ['platform_a']);
  }, 60_000);

  afterAll(async () => {
    await local?.close();
  });

  it('is healthy', async () => {
    const res = await apiClient(baseUrl).get('/health');
    expect(res.status).toBe(200);
    expect(res.body.data.checks).toEqual({ database: 'ok', nats: 'ok', agents_service: 'ok', conversations_service: 'ok', notifications_service: 'ok' });
  });

  it('creates an agent, ingests call events and reads the conversation back', async () => {
    const agent = await api.post('/v1/agents', { name: 'Local agent', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    expect(agent.headers.get('etag')).toMatch(/^"\d+"$/);
    const agentId = agent.body.data.id;

    const event = {
      id: 'local-evt-1', type: 'call.started', conversation_id: 'local-conv-1', agent_id: agentId, occurred_at: '2025-03-01T10:00:00Z',
      data: { caller_number: '+14155550100', start_time: '2025-03-01T10:00:00Z' },
    };
    const accepted = await api.post('/v1/call-events', event);
    expect(accepted.status).toBe(202);
    expect(accepted.body.data).toEqual({ accepted: 1, event_ids: ['local-evt-1'] });

    const unknown = await api.post('/v1/call-events', { ...event, id: 'local-evt-2', agent_id: 'nobody' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_agent', field: 'agent_id' });

    const deadline = Date.now() + 10_000;
    let detail = await api.get('/v1/conversations/local-conv-1');
    while (detail.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      detail = await api.get('/v1/conversations/local-conv-1');
    }
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({ id: 'local-conv-1', agent_id: agentId, status: 'in_progress' });
  }, 20_000);
});
