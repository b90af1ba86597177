import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

describe('call events over JetStream → conversation records', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const otherAccount = `acc_${randomUUID()}`;
  const agent = `agt_${randomUUID()}`;
  const quietAgent = `agt_${randomUUID()}`;
  const otherAgent = `agt_${randomUUID()}`;

  beforeAll(async () => {
    h = await startHarness({ tuning: { unknownAgentRetryMs: 200 } });
    await h.publishAgent({ agent_id: agent, account_id: account, name: 'Front Desk', voice_platform: 'platform_b' });
    await h.publishAgent({ agent_id: quietAgent, account_id: account, name: 'Quiet', recording_enabled: false, transcription_enabled: false });
    await h.publishAgent({ agent_id: otherAgent, account_id: otherAccount, name: 'Elsewhere' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('folds a full call into a completed record with every list field', async () => {
    const c = callEvents(`conv-${randomUUID()}`, agent);
    const events = [
      c.started('+14155550123'),
      c.progress(30, { duration: 30, sentiment: 'negative', topics: ['billing'] }),
      c.transcript(40, [
        { speaker: 'agent', text: 'Hello, how can I help?', start_ms: 0, end_ms: 1500 },
        { speaker: 'caller', text: 'My invoice is wrong.', start_ms: 1600, end_ms: 3000 },
      ]),
      c.ended(120, { summary: 'Invoice corrected.', outcome: 'resolved', recording_url: 'https://rec.example.com/1.mp3', language: 'en' }),
    ];
    await h.publishCallEvents(events);
    const id = events[0].conversation_id;
    const item = await h.eventually(async () => {
      const page = await h.list(account, {});
      const found = page.items.find((i) => i.id === id);
      expect(found?.status).toBe('completed');
      return found!;
    });
    expect(item).toEqual({
      id,
      agent_id: agent,
      agent_name: 'Front Desk',
      caller_number: '+14155550123',
      status: 'completed',
      start_time: '2025-03-01T10:00:00.000Z',
      end_time: '2025-03-01T10:02:00.000Z',
      duration: 120,
      sentiment: 'negative',
      outcome: 'resolved',
      topics: ['billing'],
      has_recording: true,
      has_transcript: true,
      summary: 'Invoice corrected.',
      created_at: expect.any(String),
    });
    const detail = await h.get(account, id);
    expect(detail.technical.voice_platform).toBe('platform_b');
    expect(detail.content.recording_url).toBe('https://rec.example.com/1.mp3');
    expect(detail.content.transcript.map((s) => s.text)).toEqual(['Hello, how can I help?', 'My invoice is wrong.']);
  });

  it('never stores a recording or transcript for an agent with those switches off', async () => {
    const c = callEvents(`conv-${randomUUID()}`, quietAgent);
    const events = [
      c.started(),
      c.transcript(10, [{ speaker: 'agent', text: 'secret', start_ms: 0, end_ms: 100 }]),
      c.ended(20, { recording_url: 'https://rec.example.com/2.mp3' }),
    ];
    await h.publishCallEvents(events);
    const detail = await h.eventually(async () => {
      const d = await h.get(account, events[0].conversation_id);
      expect(d.status).toBe('completed');
      return d;
    });
    expect(detail).toMatchObject({ has_recording: false, has_transcript: false, content: { recording_url: null, transcript: [] } });
    const stored = await h.db.query(`SELECT data::text FROM conversations.events WHERE stream_id = $1`, [events[0].conversation_id]);
    expect(stored.rows.map((r) => r.data).join(' ')).not.toMatch(/secret|rec\.example\.com/);
    await expect(h.transcript(account, events[0].conversation_id, 'json')).rejects.toMatchObject({ code: 'transcript_not_available' });
  });

  it('retries an event whose agent is not known yet, and records it once the agent arrives', async () => {
    const lateAgent = `agt_${randomUUID()}`;
    const c = callEvents(`conv-${randomUUID()}`, lateAgent);
    const events = [c.started(), c.ended(60, { outcome: 'transferred' })];
    await h.publishCallEvents(events);
    await new Promise((r) => setTimeout(r, 700));
    expect((await h.list(account, { agent_id: lateAgent })).total).toBe(0);
    await h.publishAgent({ agent_id: lateAgent, account_id: account, name: 'Late' });
    const item = await h.eventually(async () => {
      const page = await h.list(account, { agent_id: lateAgent });
      expect(page.items[0]?.status).toBe('completed');
      return page.items[0];
    });
    expect(item).toMatchObject({ agent_name: 'Late', outcome: 'transferred' });
  });

  it('terminates an invalid event without blocking the ones behind it', async () => {
    const c = callEvents(`conv-${randomUUID()}`, agent);
    const bad = { ...c.started(), data: { caller_number: 'not a phone', start_time: 'yesterday' } };
    const good = callEvents(`conv-${randomUUID()}`, agent).started();
    await h.js.publish(`${h.namespace}.call_events.call.started`, 'this is not json');
    await h.publishCallEvents([bad as never, good]);
    await h.eventually(async () => expect((await h.get(account, good.conversation_id)).status).toBe('in_progress'));
    await expect(h.get(account, bad.conversation_id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('keeps another account out: not listed, not found, and its agent cannot write into the conversation', async () => {
    const c = callEvents(`conv-${randomUUID()}`, agent);
    const started = c.started();
    await h.publishCallEvents([started]);
    await h.eventually(async () => expect((await h.get(account, started.conversation_id)).status).toBe('in_progress'));
    await expect(h.get(otherAccount, started.conversation_id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await h.list(otherAccount, {})).items.map((i) => i.id)).not.toContain(started.conversation_id);
    const intruder = callEvents(started.conversation_id, otherAgent).ended(10, { summary: 'hijacked' });
    const marker = callEvents(`conv-${randomUUID()}`, otherAgent).started();
    await h.publishCallEvents([intruder, marker]);
    await h.eventually(async () => expect((await h.get(otherAccount, marker.conversation_id)).status).toBe('in_progress'));
    expect(await h.get(account, started.conversation_id)).toMatchObject({ status: 'in_progress', summary: null });
  });
});
