import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { signPlatformAWebhook, signPlatformBWebhook } from '@voice/platform-simulators';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ApiResponse } from './support/http.js';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

jest.setTimeout(90_000);

const CARD = '4111 1111 1111 1111';
const CARD_SAID = 'four one one one, one one one one, one one one one, one one one one';
const T0 = Date.now() - 600_000;
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
let seq = 0;
const event = (type: string, conversationId: string, agentId: string, seconds: number, data: object) => ({
  id: `privacy-${randomUUID()}-${++seq}`, type, conversation_id: conversationId, agent_id: agentId, occurred_at: at(seconds), data,
});

/**
 * The agent's privacy settings applied at ingest, through the real path (POST /v1/call-events and a signed
 * platform webhook → gateway → NATS → conversations-service → PostgreSQL → the API), checked over the API and
 * in every table of the conversations schema: what a redacting agent's calls said is stored only redacted, and a
 * zero-retention agent's content is stored nowhere.
 */
describe('privacy at ingest', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let db: pg.Client;

  const agentOn = async (platform: 'platform_a' | 'platform_b', body: object) => {
    const res = await account.api.post('/v1/agents', { voice_platform: platform, ...body });
    expect(res.status).toBe(201);
    const agent = await pollUntil(
      () => account.api.get(`/v1/agents/${res.body.data.id}`),
      (r) => typeof r.body.data?.platform_sync?.platform_agent_id === 'string',
      20_000,
    );
    return { id: res.body.data.id as string, platformAgentId: agent.body.data.platform_sync.platform_agent_id as string };
  };
  const conversationWhen = (id: string, accept: (res: ApiResponse) => boolean) =>
    pollUntil(() => account.api.get(`/v1/conversations/${encodeURIComponent(id)}`), accept, 30_000);
  const searchIds = async (text: string) =>
    ((await account.api.get(`/v1/conversations?search=${encodeURIComponent(text)}&per_page=100`)).body.data as Array<{ id: string }>).map((c) => c.id);
  /** Every row of every table of the conversations schema, as text, that holds one of the needles. */
  const rowsHolding = async (needles: string[]) => {
    const { rows: tables } = await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'conversations' AND table_type = 'BASE TABLE'`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['events', 'conversations']));
    const found: string[] = [];
    for (const { table_name } of tables) {
      const { rows } = await db.query<{ row: string }>(`SELECT t::text AS row FROM conversations."${table_name}" t`);
      for (const { row } of rows) {
        for (const needle of needles) if (row.toLowerCase().includes(needle.toLowerCase())) found.push(`${table_name}: ${needle}`);
      }
    }
    return found;
  };

  beforeAll(async () => {
    system = await startSystem({ rpcTimeoutMs: 5000 });
    account = await system.createAccount();
    db = new pg.Client({ connectionString: system.databaseUrl });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.close();
  });

  it('a redacting agent: transcript, summary, topics and keywords stored redacted; search finds [CREDIT_CARD], never the number', async () => {
    const agent = await agentOn('platform_b', {
      name: 'Redacting desk',
      pii_redaction: { enabled: true, categories: ['credit_card', 'email', 'ssn', 'phone_number', 'caller_number'] },
    });
    const posted = `conv-${randomUUID()}`;
    const res = await account.api.post('/v1/call-events', {
      events: [
        event('call.started', posted, agent.id, 0, { caller_number: '+14155550123', start_time: at(0) }),
        event('call.transcript', posted, agent.id, 40, { segments: [
          { speaker: 'agent', text: 'Which card would you like to use?', start_ms: 1000, end_ms: 2500 },
          { speaker: 'caller', text: `my card is ${CARD_SAID}, thanks`, start_ms: 3000, end_ms: 9000 },
          { speaker: 'caller', text: 'and my email is john dot smith at gmail dot com', start_ms: 9500, end_ms: 12000 },
        ] }),
        event('call.ended', posted, agent.id, 60, {
          end_time: at(60), duration: 60, summary: `Paid with card ${CARD}; receipt to ann.lee@example.com.`,
          topics: ['payment', 'card 4111111111111111'], keywords: ['ann.lee@example.com', 'receipt'],
        }),
      ],
    });
    expect(res.status).toBe(202);

    // platform_b's end-of-call report, signed as the platform signs it.
    const callId = randomUUID();
    const startMs = Date.now() - 120_000;
    const call = { id: callId, assistantId: agent.platformAgentId, type: 'inboundPhoneCall', customer: { number: '+19175550188' }, phoneNumber: { number: '+14155550199' } };
    const { webhook_url } = (await account.api.get('/v1/integrations/platform_b')).body.data;
    const body = JSON.stringify({
      message: {
        type: 'end-of-call-report', timestamp: startMs, call, endedReason: 'customer-ended-call',
        startedAt: new Date(startMs).toISOString(), endedAt: new Date(startMs + 30_000).toISOString(), cost: 0.05,
        artifact: {
          messages: [
            { role: 'bot', message: 'Can I have your social?', time: startMs + 500, endTime: startMs + 2000, secondsFromStart: 0.5, duration: 1500 },
            { role: 'user', message: `it is 123-45-6789 and the card ${CARD}`, time: startMs + 3000, endTime: startMs + 8000, secondsFromStart: 3, duration: 5000 },
          ],
        },
        analysis: { summary: 'Caller gave SSN 123-45-6789 to verify; call back on (415) 555-0132.' },
      },
    });
    const delivered = await fetch(webhook_url, {
      method: 'POST', body, headers: { 'content-type': 'application/json', ...signPlatformBWebhook(body, system.platforms.webhookSecret) },
    });
    expect(delivered.status).toBe(200);

    const fromApi = await conversationWhen(posted, (r) => r.status === 200 && r.body.data.content.transcript.length === 3 && r.body.data.status === 'completed');
    expect(fromApi.body.data).toMatchObject({
      caller_number: '**23',
      summary: 'Paid with card [CREDIT_CARD]; receipt to [EMAIL].',
      content: {
        summary: 'Paid with card [CREDIT_CARD]; receipt to [EMAIL].',
        transcript: [
          { speaker: 'agent', text: 'Which card would you like to use?', start_ms: 1000, end_ms: 2500 },
          { speaker: 'caller', text: 'my card is [CREDIT_CARD], thanks', start_ms: 3000, end_ms: 9000 },
          { speaker: 'caller', text: 'and my email is [EMAIL]', start_ms: 9500, end_ms: 12000 },
        ],
      },
      analytics: { topics: ['payment', 'card [CREDIT_CARD]'], keywords: ['[EMAIL]', 'receipt'] },
    });
    const fromWebhook = await conversationWhen(callId, (r) => r.status === 200 && r.body.data.status === 'completed');
    expect(fromWebhook.body.data).toMatchObject({
      caller_number: '**88',
      summary: 'Caller gave SSN [SSN] to verify; call back on [PHONE_NUMBER].',
      content: { transcript: [{ text: 'Can I have your social?' }, { text: 'it is [SSN] and the card [CREDIT_CARD]' }] },
    });

    expect(await searchIds('[CREDIT_CARD]')).toEqual(expect.arrayContaining([posted, callId]));
    expect(await searchIds('4111')).toEqual([]);
    expect(await searchIds('four one one one')).toEqual([]);
    expect(await searchIds('gmail')).toEqual([]);
    expect(await rowsHolding(['4111', 'four one one one', 'gmail', 'ann.lee', '6789', '555-0132', '+14155550123', '+19175550188'])).toEqual([]);

    // The gateway's inbound delivery log keeps the platform's body redacted alike, the caller's number masked.
    const { rows: logged } = await db.query<{ id: string; outcome: string; body: string }>(
      `SELECT id, outcome, convert_from(body, 'UTF8') AS body FROM gateway.webhook_deliveries WHERE platform_call_id = $1`, [callId],
    );
    expect(logged.map((row) => row.outcome)).toEqual(['accepted']);
    for (const needle of ['123-45-6789', '4111', '555-0132', '+19175550188']) expect([needle, logged[0].body.includes(needle)]).toEqual([needle, false]);
    expect(JSON.parse(logged[0].body).message).toMatchObject({
      call: { id: callId, assistantId: agent.platformAgentId, customer: { number: '**88' } },
      analysis: { summary: 'Caller gave SSN [SSN] to verify; call back on [PHONE_NUMBER].' },
    });
    // A replay of the stored (redacted) body is still the same delivery: nothing is recorded twice.
    const replayed = await account.api.post(`/v1/webhook-deliveries/${logged[0].id}/replay`, {});
    expect([replayed.status, replayed.body.data?.outcome]).toEqual([202, 'duplicate']);
  });

  it('a redacting agent on platform_a: the transcript, its words and the analysis of signed webhooks stored redacted, timing kept', async () => {
    const agent = await agentOn('platform_a', { name: 'Redacting desk A', pii_redaction: { enabled: true, categories: ['credit_card', 'email', 'ssn'] } });
    const callId = `call_privacy_a_${randomUUID().replaceAll('-', '')}`;
    const startMs = Date.now() - 120_000;
    const call = {
      call_id: callId, agent_id: agent.platformAgentId, direction: 'inbound', from_number: '+19175550177', to_number: '+14155550199',
      start_timestamp: startMs,
    };
    const said = `my card is ${CARD_SAID} and my email is mia dot ross at gmail dot com`;
    const transcript = [
      { role: 'agent', content: 'How would you like to pay?', words: [{ word: 'How', start: 0.5, end: 0.7 }, { word: 'pay?', start: 1.6, end: 2.0 }] },
      { role: 'user', content: said, words: said.split(' ').map((word, i) => ({ word, start: 3 + i * 0.3, end: 3.25 + i * 0.3 })) },
    ];
    const { webhook_url } = (await account.api.get('/v1/integrations/platform_a')).body.data;
    const deliver = async (message: object) => {
      const body = JSON.stringify(message);
      const res = await fetch(webhook_url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...signPlatformAWebhook(body, system.platforms.webhookSecret) } });
      expect(res.status).toBe(200);
    };
    await deliver({ event: 'call_started', call: { ...call, call_status: 'ongoing' } });
    await deliver({ event: 'transcript_updated', call: { ...call, call_status: 'ongoing', transcript_object: transcript } });
    const ended = { ...call, call_status: 'ended', disconnection_reason: 'user_hangup', end_timestamp: startMs + 40_000, duration_ms: 40_000, transcript_object: transcript };
    await deliver({ event: 'call_ended', call: ended });
    await deliver({
      event: 'call_analyzed',
      call: { ...ended, call_analysis: { call_summary: 'Paid by card 4111-1111-1111-1111, SSN 123-45-6789 on file.', user_sentiment: 'Positive', call_successful: true } },
    });

    const res = await conversationWhen(callId, (r) => r.status === 200 && r.body.data.status === 'completed' && r.body.data.summary !== null);
    expect(res.body.data).toMatchObject({
      caller_number: '+19175550177',
      summary: 'Paid by card [CREDIT_CARD], SSN [SSN] on file.',
      content: {
        transcript: [
          { speaker: 'agent', text: 'How would you like to pay?' },
          { speaker: 'caller', text: 'my card is [CREDIT_CARD] and my email is [EMAIL]', start_ms: 3000 },
        ],
      },
    });
    expect(await searchIds('[CREDIT_CARD]')).toContain(callId);
    expect(await searchIds('mia dot ross')).toEqual([]);
    expect(await rowsHolding(['four one one one', '4111', 'gmail', 'mia dot', '6789'])).toEqual([]);
  });

  it('a zero-retention agent: no transcript, summary or recording URL over the API or in any table; metadata and analytics kept', async () => {
    const agent = await agentOn('platform_a', { name: 'Zero retention desk', store_content: false });
    const id = `conv-${randomUUID()}`;
    const res = await account.api.post('/v1/call-events', {
      events: [
        event('call.started', id, agent.id, 0, { caller_number: '+14155550177', start_time: at(0) }),
        event('call.transcript', id, agent.id, 40, { segments: [{ speaker: 'caller', text: 'I want to cancel my subscription quietly', start_ms: 0, end_ms: 3000 }] }),
        event('call.ended', id, agent.id, 60, {
          end_time: at(60), duration: 60, summary: 'Cancelled the subscription quietly.', recording_url: 'https://rec.example.com/zero-retention.mp3',
          sentiment: 'neutral', outcome: 'resolved', topics: ['cancellation'],
        }),
      ],
    });
    expect(res.status).toBe(202);

    const fromApi = await conversationWhen(id, (r) => r.status === 200 && r.body.data.status === 'completed');
    expect(fromApi.body.data).toMatchObject({
      caller_number: '+14155550177', duration: 60, sentiment: 'neutral', outcome: 'resolved', topics: ['cancellation'],
      summary: null, has_recording: false, has_transcript: false,
      content: { transcript: [], recording_url: null, summary: null },
    });
    const transcript = await account.api.get(`/v1/conversations/${id}/transcript`);
    expect(transcript.status).toBe(404);
    expect(await rowsHolding(['cancel my subscription', 'Cancelled the subscription', 'zero-retention.mp3'])).toEqual([]);
    // The stored events are the kept facts only: the transcript event without its segments, the end without content.
    const { rows } = await db.query<{ type: string; data: Record<string, unknown> }>(
      `SELECT type, data FROM conversations.events WHERE stream_id LIKE '%' || $1 ORDER BY stream_version`, [id],
    );
    expect(rows.map((r) => r.type)).toEqual(['call.started', 'call.transcript', 'call.ended']);
  });

  it('a zero-retention agent’s platform webhooks: the delivery log keeps no transcript, summary or recording URL', async () => {
    const agent = await agentOn('platform_b', { name: 'Zero retention line', store_content: false });
    const callId = randomUUID();
    const startMs = Date.now() - 120_000;
    const { webhook_url } = (await account.api.get('/v1/integrations/platform_b')).body.data;
    const body = JSON.stringify({
      message: {
        type: 'end-of-call-report', timestamp: startMs, endedReason: 'customer-ended-call',
        call: { id: callId, assistantId: agent.platformAgentId, type: 'inboundPhoneCall', customer: { number: '+19175550166' }, phoneNumber: { number: '+14155550199' } },
        startedAt: new Date(startMs).toISOString(), endedAt: new Date(startMs + 30_000).toISOString(), cost: 0.05,
        artifact: {
          messages: [{ role: 'user', message: 'please close my account quietly', time: startMs + 3000, endTime: startMs + 6000, secondsFromStart: 3, duration: 3000 }],
          transcript: 'User: please close my account quietly', recordingUrl: 'https://recordings.platform-b.example/zero.wav',
        },
        analysis: { summary: 'Closed the account quietly.' },
      },
    });
    const delivered = await fetch(webhook_url, {
      method: 'POST', body, headers: { 'content-type': 'application/json', ...signPlatformBWebhook(body, system.platforms.webhookSecret) },
    });
    expect(delivered.status).toBe(200);
    await conversationWhen(callId, (r) => r.status === 200 && r.body.data.status === 'completed');
    const { rows } = await db.query<{ body: string }>(`SELECT convert_from(body, 'UTF8') AS body FROM gateway.webhook_deliveries WHERE platform_call_id = $1`, [callId]);
    expect(rows).toHaveLength(1);
    for (const needle of ['close my account', 'Closed the account', 'zero.wav']) expect([needle, rows[0].body.includes(needle)]).toEqual([needle, false]);
    expect(JSON.parse(rows[0].body).message).toMatchObject({ call: { id: callId, customer: { number: '+19175550166' } }, endedReason: 'customer-ended-call' });
  });
});
