import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

jest.setTimeout(120_000);

const DAY = 24 * 60 * 60 * 1000;
let seq = 0;
const callOf = (conversationId: string, agentId: string, daysAgo: number) => {
  const start = Date.now() - daysAgo * DAY;
  const at = (seconds: number) => new Date(start + seconds * 1000).toISOString();
  const event = (type: string, seconds: number, data: object) => ({
    id: `ret-${randomUUID()}-${++seq}`, type, conversation_id: conversationId, agent_id: agentId, occurred_at: at(seconds), data,
  });
  return [
    event('call.started', 0, { caller_number: '+19175550188', start_time: at(0) }),
    event('call.ended', 60, { end_time: at(60), duration: 60, summary: 'Moved an appointment.', recording_url: `https://rec.example.com/${conversationId}.mp3` }),
  ];
};

/**
 * The agent's retention set over the API reaches conversations-service, whose sweep (every 300 ms here) removes
 * recordings past recordings_days and erases conversations past conversations_days from every service, checked over
 * the API and in the databases of conversations-service and notifications-service.
 */
describe('retention', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let db: pg.Client;

  beforeAll(async () => {
    system = await startSystem({ rpcTimeoutMs: 5000, conversationsTuning: { retentionSweepMs: 300 } });
    account = await system.createAccount();
    db = new pg.Client({ connectionString: system.databaseUrl });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await system?.close();
  });

  it('past recordings_days the recording is removed; past conversations_days the conversation is erased everywhere', async () => {
    const agent = await account.api.post('/v1/agents', { name: 'Keeps a month', voice_platform: 'platform_a', retention: { conversations_days: 30, recordings_days: 7 } });
    expect(agent.status).toBe(201);
    const agentId = agent.body.data.id as string;
    await pollUntil(async () => (await db.query('SELECT retention_conversations_days AS days FROM conversations.agents WHERE agent_id = $1', [agentId])).rows[0]?.days, (days) => days === 30, 20_000);
    const [old, middle, recent] = [`old-${randomUUID()}`, `middle-${randomUUID()}`, `recent-${randomUUID()}`];
    const events = [...callOf(old, agentId, 40), ...callOf(middle, agentId, 10), ...callOf(recent, agentId, 1)];
    expect((await account.api.post('/v1/call-events', { events })).status).toBe(202);

    // A 404 alone would also be seen before the accepted events are recorded, so the erasure's tombstone is awaited.
    const tombstones = await pollUntil(
      async () => (await db.query('SELECT conversation_id, reason FROM conversations.erased_conversations WHERE account_id = $1', [account.id])).rows,
      (rows) => rows.length > 0, 30_000,
    );
    expect(tombstones).toEqual([{ conversation_id: old, reason: 'retention' }]);
    expect((await account.api.get(`/v1/conversations/${old}`)).status).toBe(404);
    const kept = await pollUntil(() => account.api.get(`/v1/conversations/${middle}`), (r) => r.status === 200 && r.body.data.has_recording === false, 30_000);
    expect(kept.body.data.content.recording_url).toBeNull();
    expect((await account.api.get(`/v1/conversations/${recent}`)).body.data.content.recording_url).toBe(`https://rec.example.com/${recent}.mp3`);
    const { rows: allTombstones } = await db.query('SELECT conversation_id, reason FROM conversations.erased_conversations WHERE account_id = $1', [account.id]);
    expect(allTombstones).toEqual([{ conversation_id: old, reason: 'retention' }]);
    // The erased call's outbound events went with it (notifications-service heard of the erasure).
    await pollUntil(
      async () => (await db.query('SELECT count(*)::int AS n FROM notifications.events WHERE account_id = $1 AND conversation_id = $2', [account.id, old])).rows[0].n,
      (n) => n === 0, 20_000,
    );
    expect((await db.query(`SELECT count(*)::int AS n FROM conversations.events WHERE data->'data' ? 'recording_url' AND stream_id = $1`, [middle])).rows[0].n).toBe(0);
  });
});
