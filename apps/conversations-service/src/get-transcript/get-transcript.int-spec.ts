import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

describe('conversation detail and transcript RPC', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const agent = `agt_${randomUUID()}`;
  const id = `conv:${randomUUID()}`;
  const noTranscriptId = `conv-${randomUUID()}`;

  beforeAll(async () => {
    h = await startHarness();
    await h.publishAgent({ agent_id: agent, account_id: account, name: 'Night Line', voice_platform: 'platform_a' });
    const c = callEvents(id, agent);
    const hour = 3_600_000;
    await h.publishCallEvents([
      c.started('+442071838750'),
      // Segments arrive out of order and partly twice; the last one starts past the first hour.
      c.transcript(5000, [
        { speaker: 'caller', text: 'Still there after an hour?', start_ms: hour + 61_001, end_ms: hour + 65_250 },
        { speaker: 'agent', text: 'Good evening.', start_ms: 0, end_ms: 1_200 },
      ]),
      c.ended(4000, { language: 'en', summary: 'Long call.' }),
      c.transcript(4100, [{ speaker: 'agent', text: 'Good evening.', start_ms: 0, end_ms: 1_200 }, { speaker: 'agent', text: 'Yes & <always>.', start_ms: hour + 66_000, end_ms: hour + 67_000 }]),
    ]);
    const n = callEvents(noTranscriptId, agent);
    await h.publishCallEvents([n.abandoned(0, { reason: 'no_answer' })]);
    await h.eventually(async () => {
      expect((await h.get(account, id)).content.transcript).toHaveLength(3);
      expect((await h.get(account, noTranscriptId)).status).toBe('abandoned');
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('detail groups the full record and keeps status-specific data', async () => {
    const detail = await h.get(account, id);
    expect(detail).toMatchObject({
      id, status: 'completed', agent_name: 'Night Line', duration: 4000, has_transcript: true, has_recording: false,
      updated_at: expect.any(String),
      content: { language: 'en', summary: 'Long call.', recording_url: null },
      analytics: { sentiment: null, topics: [], keywords: [], satisfaction: null, intent: null },
      outcomes: { outcome: null, actions_taken: [], follow_up_tasks: [], integrations: [] },
      technical: { voice_platform: 'platform_a', quality: null, network: null, errors: [] },
      failure_reason: null, abandonment_reason: null,
    });
    expect(await h.get(account, noTranscriptId)).toMatchObject({ status: 'abandoned', abandonment_reason: 'no_answer', duration: 0 });
  });

  it('json: ordered, de-duplicated segments', async () => {
    const reply = await h.transcript(account, id, 'json');
    expect(reply).toEqual({
      format: 'json',
      transcript: {
        conversation_id: id,
        language: 'en',
        segments: [
          { speaker: 'agent', text: 'Good evening.', start_ms: 0, end_ms: 1200 },
          { speaker: 'caller', text: 'Still there after an hour?', start_ms: 3_661_001, end_ms: 3_665_250 },
          { speaker: 'agent', text: 'Yes & <always>.', start_ms: 3_666_000, end_ms: 3_667_000 },
        ],
      },
    });
  });

  it('text, srt and vtt documents with times past one hour', async () => {
    const safeName = id.replace(/:/g, '_');
    expect(await h.transcript(account, id, 'text')).toEqual({
      format: 'text', content_type: 'text/plain; charset=utf-8', filename: `conversation-${safeName}.txt`,
      body: 'Agent: Good evening.\nCaller: Still there after an hour?\nAgent: Yes & <always>.\n',
    });
    expect(await h.transcript(account, id, 'srt')).toEqual({
      format: 'srt', content_type: 'application/x-subrip', filename: `conversation-${safeName}.srt`,
      body: '1\n00:00:00,000 --> 00:00:01,200\nAgent: Good evening.\n\n2\n01:01:01,001 --> 01:01:05,250\nCaller: Still there after an hour?\n\n3\n01:01:06,000 --> 01:01:07,000\nAgent: Yes & <always>.\n',
    });
    expect(await h.transcript(account, id, 'vtt')).toEqual({
      format: 'vtt', content_type: 'text/vtt', filename: `conversation-${safeName}.vtt`,
      body: 'WEBVTT\n\n00:00:00.000 --> 00:00:01.200\nAgent: Good evening.\n\n01:01:01.001 --> 01:01:05.250\nCaller: Still there after an hour?\n\n01:01:06.000 --> 01:01:07.000\nAgent: Yes &amp; &lt;always>.\n',
    });
  });

  it('errors: bad format, unknown or foreign conversation, no stored transcript', async () => {
    await expect(h.transcript(account, id, 'pdf')).rejects.toMatchObject({ code: 'invalid_parameter', field: 'format', valid_values: ['json', 'text', 'srt', 'vtt'] });
    await expect(h.transcript(account, 'nope', 'json')).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.transcript(`acc_${randomUUID()}`, id, 'srt')).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.get(`acc_${randomUUID()}`, id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.transcript(account, noTranscriptId, 'vtt')).rejects.toMatchObject({ code: 'transcript_not_available' });
  });

  it('health answers after a database round trip', async () => {
    expect(await h.rpc('conversations.health', {})).toEqual({ service: 'conversations-service', status: 'ok' });
  });
});
