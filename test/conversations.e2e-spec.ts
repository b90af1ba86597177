import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';
import { pollUntil } from './support/poll.js';

jest.setTimeout(60_000);

const T0 = Date.parse('2025-04-01T09:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
let seq = 0;
const event = (type: string, conversationId: string, agentId: string, seconds: number, data: object) => ({
  id: `e2e-${randomUUID()}-${++seq}`, type, conversation_id: conversationId, agent_id: agentId, occurred_at: at(seconds), data,
});

const eventually = <T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 8000): Promise<T> => pollUntil(probe, accept, timeoutMs, 25);

/** The whole path: agents-service → agent events → conversations-service ← call events ← gateway, read back over HTTP. */
describe('conversations end to end', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let stranger: TestAccount;
  let agentId: string;
  let privateAgentId: string;
  const completed = `conv-${randomUUID()}`;
  const abandoned = `conv-${randomUUID()}`;
  const failed = `conv-${randomUUID()}`;
  const privateCall = `conv-${randomUUID()}`;

  beforeAll(async () => {
    system = await startSystem();
    account = await system.createAccount({ voice_platforms: ['platform_a', 'platform_b'] });
    stranger = await system.createAccount();
    const agent = await account.api.post('/v1/agents', { name: 'Front Desk', voice_platform: 'platform_b' });
    expect(agent.status).toBe(201);
    agentId = agent.body.data.id;
    const privateAgent = await account.api.post('/v1/agents', { name: 'Private Line', voice_platform: 'platform_a', recording_enabled: false, transcription_enabled: false });
    expect(privateAgent.status).toBe(201);
    privateAgentId = privateAgent.body.data.id;

    const hour = 3_600_000;
    const res = await account.api.post('/v1/call-events', {
      events: [
        event('call.started', completed, agentId, 0, { caller_number: '+14155550100', start_time: at(0) }),
        event('call.progress', completed, agentId, 60, { duration: 60, sentiment: 'negative', topics: ['Billing'] }),
        event('call.ended', completed, agentId, 3700, {
          end_time: at(3700), duration: 3700, summary: 'Refunded a 100% duplicate charge.', outcome: 'resolved', recording_url: 'https://rec.example.com/a.mp3',
          language: 'en', intent: 'billing_question', follow_up_tasks: [{ description: 'Email receipt' }], integrations: [{ system: 'zendesk', action: 'ticket_created', reference: 'ZD-9' }],
          quality: { mos: 4.3 }, network: { codec: 'opus' },
        }),
        // The final transcript arrives after the call ended.
        event('call.transcript', completed, agentId, 3710, { segments: [
          { speaker: 'caller', text: 'You charged me twice.', start_ms: 2_000, end_ms: 4_000 },
          { speaker: 'agent', text: 'Refund done, anything else?', start_ms: hour + 5_000, end_ms: hour + 7_500 },
        ] }),
        event('call.abandoned', abandoned, agentId, 10, { reason: 'busy', caller_number: '+14155550199', start_time: at(10) }),
        event('call.started', failed, agentId, 20, { caller_number: '+14155550100', start_time: at(20) }),
        event('call.failed', failed, agentId, 25, { failure_reason: 'sip_timeout', duration: 5 }),
        event('call.started', privateCall, privateAgentId, 30, { caller_number: '+14155550123', start_time: at(30) }),
        event('call.transcript', privateCall, privateAgentId, 40, { segments: [{ speaker: 'caller', text: 'my card number is', start_ms: 0, end_ms: 900 }] }),
        event('call.ended', privateCall, privateAgentId, 50, { end_time: at(50), duration: 20, recording_url: 'https://rec.example.com/private.mp3' }),
      ],
    });
    expect(res.status).toBe(202);
    const listed = await eventually(() => account.api.get('/v1/conversations'), (r) => r.body.meta?.total === 4 && r.body.data.every((c: { id: string; status: string }) => c.status !== 'in_progress'));
    expect(listed.body.meta.total).toBe(4);
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  it('lists the account’s conversations with every field, agent names and pagination links', async () => {
    const res = await account.api.get('/v1/conversations?per_page=2&sort_by=start_time&sort_order=asc');
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ total: 4, page: 1, per_page: 2, total_pages: 2 });
    expect(res.body.links.prev).toBeNull();
    expect(res.body.links.next).toMatch(/^http:\/\/.+page=2/);
    expect(res.body.links.next).toMatch(/sort_order=asc/);
    const [first] = res.body.data;
    expect(first).toEqual({
      id: completed, agent_id: agentId, agent_name: 'Front Desk', caller_number: '+14155550100', status: 'completed',
      start_time: at(0), end_time: at(3700), duration: 3700, sentiment: 'negative', outcome: 'resolved', topics: ['Billing'],
      has_recording: true, has_transcript: true, summary: 'Refunded a 100% duplicate charge.', created_at: expect.any(String),
    });
    const all = await account.api.get('/v1/conversations');
    const byId = Object.fromEntries(all.body.data.map((c: { id: string }) => [c.id, c]));
    expect(byId[abandoned]).toMatchObject({ status: 'abandoned', duration: 0, caller_number: '+14155550199', sentiment: null, outcome: null, topics: [], summary: null, end_time: null, has_recording: false, has_transcript: false });
    expect(byId[failed]).toMatchObject({ status: 'failed', duration: 5 });
  });

  it('filters over HTTP: search with a literal %, topic, caller, status', async () => {
    const ids = async (query: string) => (await account.api.get(`/v1/conversations?${query}`)).body.data.map((c: { id: string }) => c.id).sort();
    expect(await ids('search=100%25%20duplicate')).toEqual([completed]);
    expect(await ids('search=10%25%20duplicate')).toEqual([]);
    expect(await ids('search=ANYTHING%20ELSE')).toEqual([completed]);
    expect(await ids('topic=billing')).toEqual([completed]);
    expect(await ids(`caller=${encodeURIComponent('+14155550100')}`)).toEqual([completed, failed].sort());
    expect(await ids('status=abandoned')).toEqual([abandoned]);
  });

  it('answers 400 with field and valid_values for bad parameters', async () => {
    const bad = await account.api.get('/v1/conversations?sentiment=angry');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_parameter', field: 'sentiment', valid_values: ['positive', 'neutral', 'negative'] });
    const date = await account.api.get('/v1/conversations?start_date=yesterday');
    expect(date.status).toBe(400);
    expect(date.body.error).toMatchObject({ code: 'invalid_date_format', field: 'start_date' });
  });

  it('detail: grouped record, agent platform, status-specific data', async () => {
    const res = await account.api.get(`/v1/conversations/${completed}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: completed, status: 'completed', updated_at: expect.any(String),
      content: { recording_url: 'https://rec.example.com/a.mp3', language: 'en', transcript: [{ text: 'You charged me twice.' }, { text: 'Refund done, anything else?' }] },
      analytics: { sentiment: 'negative', topics: ['Billing'], intent: 'billing_question' },
      outcomes: { outcome: 'resolved', follow_up_tasks: [{ description: 'Email receipt' }], integrations: [{ system: 'zendesk', reference: 'ZD-9' }] },
      technical: { voice_platform: 'platform_b', quality: { mos: 4.3 }, network: { codec: 'opus' } },
      failure_reason: null, abandonment_reason: null,
    });
    expect((await account.api.get(`/v1/conversations/${failed}`)).body.data).toMatchObject({ failure_reason: 'sip_timeout' });
    expect((await account.api.get(`/v1/conversations/${abandoned}`)).body.data).toMatchObject({ abandonment_reason: 'busy' });
  });

  it('transcripts: SRT past one hour, VTT by Accept, 404s that tell the cases apart', async () => {
    const srt = await account.api.get(`/v1/conversations/${completed}/transcript?format=srt`);
    expect(srt.status).toBe(200);
    expect(srt.headers.get('content-type')).toMatch(/^application\/x-subrip/);
    expect(srt.headers.get('content-disposition')).toContain(`conversation-${completed}.srt`);
    expect(srt.text).toBe('1\n00:00:02,000 --> 00:00:04,000\nCaller: You charged me twice.\n\n2\n01:00:05,000 --> 01:00:07,500\nAgent: Refund done, anything else?\n');
    const vtt = await account.api.get(`/v1/conversations/${completed}/transcript`, { accept: 'text/vtt' });
    expect(vtt.text).toBe('WEBVTT\n\n00:00:02.000 --> 00:00:04.000\nCaller: You charged me twice.\n\n01:00:05.000 --> 01:00:07.500\nAgent: Refund done, anything else?\n');
    const json = await account.api.get(`/v1/conversations/${completed}/transcript`);
    expect(json.body.data).toMatchObject({ conversation_id: completed, language: 'en', segments: [{ speaker: 'caller' }, { speaker: 'agent' }] });
    const none = await account.api.get(`/v1/conversations/${abandoned}/transcript`);
    expect([none.status, none.body.error.code]).toEqual([404, 'transcript_not_available']);
    const unknown = await account.api.get(`/v1/conversations/conv-nope/transcript`);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
  });

  it('an agent with recording and transcription off never gets them stored', async () => {
    const res = await account.api.get(`/v1/conversations/${privateCall}`);
    expect(res.body.data).toMatchObject({ has_recording: false, has_transcript: false, content: { recording_url: null, transcript: [] } });
  });

  it('another account sees nothing: empty list, 404 (not 403) on the id', async () => {
    expect((await stranger.api.get('/v1/conversations')).body.meta.total).toBe(0);
    const res = await stranger.api.get(`/v1/conversations/${completed}`);
    expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
  });

  it('a rename reaches agent_name of existing conversations', async () => {
    const patch = await account.api.patch(`/v1/agents/${agentId}`, { name: 'Billing Desk' });
    expect(patch.status).toBe(200);
    const res = await eventually(() => account.api.get(`/v1/conversations?agent_id=${agentId}`), (r) => r.body.data.every((c: { agent_name: string }) => c.agent_name === 'Billing Desk'));
    expect(res.body.data.map((c: { agent_name: string }) => c.agent_name)).toEqual(['Billing Desk', 'Billing Desk', 'Billing Desk']);
  });
});
