import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';
import { pollUntil } from './support/poll.js';

const eventually = <T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 20_000): Promise<T> => pollUntil(probe, accept, timeoutMs);

const startedEvent = (conversationId: string, agentId: string, id = `${conversationId}-1`) => ({
  id,
  type: 'call.started',
  conversation_id: conversationId,
  agent_id: agentId,
  occurred_at: '2025-05-01T09:00:00Z',
  data: { caller_number: '+14155550100', start_time: '2025-05-01T09:00:00Z' },
});
const endedEvent = (conversationId: string, agentId: string) => ({
  id: `${conversationId}-2`,
  type: 'call.ended',
  conversation_id: conversationId,
  agent_id: agentId,
  occurred_at: '2025-05-01T09:02:00Z',
  data: { end_time: '2025-05-01T09:02:00Z', duration: 120, summary: 'Done.', sentiment: 'neutral', outcome: 'resolved' },
});

// Events reach conversations through JetStream relays that wait for older transactions cluster-wide;
// under parallel test load that can take seconds, hence the generous waits.
/** The agent rules of issues 2 and 4 as a client meets them: HTTP → gateway → NATS → agents-service → Postgres. */
describe('agent lifecycle over HTTP', () => {
  jest.setTimeout(45_000);
  let system: RunningSystem;
  let account: TestAccount;

  beforeAll(async () => {
    system = await startSystem();
    account = await system.createAccount({ agent_limit: 20 });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  it('8 simultaneous creates with one name (any case/spacing) give exactly one 201', async () => {
    const names = ['Concierge', 'concierge', ' CONCIERGE ', 'Concierge', 'conCIERGE', 'concierge ', ' concierge', 'CONCIERGE'];
    const responses = await Promise.all(names.map((name) => account.api.post('/v1/agents', { name, voice_platform: 'platform_a' })));
    expect(responses.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
    for (const r of responses.filter((r) => r.status === 422)) {
      expect(r.body.error).toMatchObject({ type: 'validation_error', code: 'duplicate_name', field: 'name' });
    }
  });

  it('simultaneous creates at the quota never exceed it', async () => {
    const small = await system.createAccount({ agent_limit: 3 });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => small.api.post('/v1/agents', { name: `Line ${i}`, voice_platform: 'platform_b' })),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of responses.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'quota_exceeded', limit: 3, current: 3 });
    }
    expect((await small.api.get('/v1/agents')).body.meta.total).toBe(3);
  });

  it('another account’s agent is 404 for GET, PATCH and DELETE, and stays untouched', async () => {
    const owner = await system.createAccount();
    const created = await owner.api.post('/v1/agents', { name: 'Private', voice_platform: 'platform_a' });
    const path = `/v1/agents/${created.body.data.id}`;
    for (const res of [await account.api.get(path), await account.api.patch(path, { name: 'Mine now' }), await account.api.delete(path)]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    }
    expect((await owner.api.get(path)).body.data.name).toBe('Private');
  });

  it('pauses and resumes; deleted is not a settable status; the same status again is a no-op', async () => {
    const created = await account.api.post('/v1/agents', { name: 'Switchboard', voice_platform: 'platform_a' });
    const path = `/v1/agents/${created.body.data.id}`;
    const paused = await account.api.patch(path, { status: 'paused' });
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ status: 'paused', phone_number: created.body.data.phone_number });
    const again = await account.api.patch(path, { status: 'paused' });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(paused.headers.get('etag'));
    expect((await account.api.get('/v1/agents?status=paused')).body.data.map((a: any) => a.id)).toContain(created.body.data.id);
    const bad = await account.api.patch(path, { status: 'deleted' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', field: 'status', valid_values: ['active', 'paused'] });
    expect((await account.api.patch(path, { status: 'active' })).body.data.status).toBe('active');
  });

  it('PATCH keeps the create rules: invalid values, duplicate name, unconfigured platform, phone in use', async () => {
    const onlyA = await system.createAccount({ voice_platforms: ['platform_a'] });
    await onlyA.api.post('/v1/agents', { name: 'Taken', voice_platform: 'platform_a', phone_number: '+14155557001' });
    const created = await onlyA.api.post('/v1/agents', { name: 'Editable', voice_platform: 'platform_a' });
    const path = `/v1/agents/${created.body.data.id}`;
    const cases: Array<[unknown, number, string, string]> = [
      [{ name: 'taken' }, 422, 'duplicate_name', 'name'],
      [{ voice_platform: 'platform_b' }, 422, 'platform_not_configured', 'voice_platform'],
      [{ phone_number: '+14155557001' }, 422, 'phone_number_in_use', 'phone_number'],
      [{ phone_number: '555-0100' }, 400, 'invalid_parameter', 'phone_number'],
      [{ metadata: { tier: 7 } }, 400, 'invalid_parameter', 'metadata.tier'],
      [{ updated_at: '2025-01-01T00:00:00Z' }, 400, 'invalid_parameter', 'updated_at'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await onlyA.api.patch(path, body);
      expect([res.status, res.body.error?.code, res.body.error?.field]).toEqual([status, code, field]);
    }
    const ok = await onlyA.api.patch(path, { welcome_message: 'Hi there', transfer_number: '+14155557002' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ welcome_message: 'Hi there', transfer_number: '+14155557002' });
    expect(Date.parse(ok.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.data.updated_at));
  });

  it('DELETE: 404 afterwards, number and quota slot released, conversations stay readable, late call events accepted', async () => {
    const tiny = await system.createAccount({ agent_limit: 1 });
    const created = await tiny.api.post('/v1/agents', { name: 'Short-lived', voice_platform: 'platform_a', phone_number: '+14155557100' });
    expect(created.status).toBe(201);
    const agentId = created.body.data.id;
    expect((await tiny.api.post('/v1/call-events', startedEvent('conv-deleted-agent', agentId))).status).toBe(202);
    await eventually(
      () => tiny.api.get('/v1/conversations/conv-deleted-agent'),
      (r) => r.status === 200,
    );

    expect((await tiny.api.delete(`/v1/agents/${agentId}`)).status).toBe(204);
    expect((await tiny.api.get(`/v1/agents/${agentId}`)).status).toBe(404);
    expect((await tiny.api.delete(`/v1/agents/${agentId}`)).status).toBe(404);
    expect((await tiny.api.get('/v1/agents')).body.meta.total).toBe(0);

    // The call that was running when the agent was deleted still ends on record.
    expect((await tiny.api.post('/v1/call-events', endedEvent('conv-deleted-agent', agentId))).status).toBe(202);
    const detail = await eventually(
      () => tiny.api.get('/v1/conversations/conv-deleted-agent'),
      (r) => r.status === 200 && r.body.data.status === 'completed',
    );
    expect(detail.body.data).toMatchObject({ agent_id: agentId, agent_name: 'Short-lived', status: 'completed' });

    // Quota slot and phone number are free again.
    const successor = await tiny.api.post('/v1/agents', { name: 'Short-lived', voice_platform: 'platform_a', phone_number: '+14155557100' });
    expect(successor.status).toBe(201);
  });

  it('a rename reaches agent_name of the agent’s conversations', async () => {
    const created = await account.api.post('/v1/agents', { name: 'Old Name', voice_platform: 'platform_b' });
    const agentId = created.body.data.id;
    expect((await account.api.post('/v1/call-events', startedEvent('conv-rename', agentId))).status).toBe(202);
    await eventually(
      () => account.api.get('/v1/conversations/conv-rename'),
      (r) => r.status === 200 && r.body.data.agent_name === 'Old Name',
    );
    expect((await account.api.patch(`/v1/agents/${agentId}`, { name: 'New Name' })).status).toBe(200);
    const detail = await eventually(
      () => account.api.get('/v1/conversations/conv-rename'),
      (r) => r.status === 200 && r.body.data.agent_name === 'New Name',
    );
    expect(detail.body.data.agent_name).toBe('New Name');
    const list = await eventually(
      () => account.api.get(`/v1/conversations?agent_id=${agentId}`),
      (r) => r.status === 200 && r.body.data[0]?.agent_name === 'New Name',
    );
    expect(list.body.data.map((c: any) => [c.id, c.agent_name])).toEqual([['conv-rename', 'New Name']]);
  });
});
