import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

const T0 = Date.parse('2025-06-02T09:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString().replace('.000Z', 'Z');

let eventSeq = 0;
function event(type: string, conversationId: string, agentId: string, seconds: number, data: Record<string, unknown>) {
  eventSeq += 1;
  return { id: `tr-evt-${eventSeq}`, type, conversation_id: conversationId, agent_id: agentId, occurred_at: at(seconds), data };
}

/** A caller-controlled text that tries to forge a second cue in SRT (and, with a blank line, in VTT). */
const INJECTION = 'x\n2\n00:00:05,000 --> 00:00:06,000\nInjected cue';
const VTT_INJECTION = 'y\r\n\r\n00:00:07.000 --> 00:00:08.000\rInjected too';

const SEGMENTS = [
  { speaker: 'agent', text: 'Hello,\rhow can I help?', start_ms: 0, end_ms: 2_000 },
  { speaker: 'caller', text: INJECTION, start_ms: 2_500, end_ms: 4_000 },
  { speaker: 'agent', text: 'Hm.', start_ms: 5_000, end_ms: 5_000 },
  { speaker: 'caller', text: VTT_INJECTION, start_ms: 3_600_000, end_ms: 3_601_500 },
  { speaker: 'agent', text: 'Line\u2028sep\u2029para\u0085nel', start_ms: 3_602_000, end_ms: 3_603_000 },
];

/** Cue blocks of a subtitle document: what a player sees. */
const blocks = (doc: string) => doc.trimEnd().split(/\n\n+/);
const timingLines = (doc: string) => doc.split(/\r\n|[\r\n]/).filter((line) => line.includes('-->'));

/**
 * Transcripts and conversation detail through the real system (gateway over
 * HTTP, services over NATS, PostgreSQL): what a client downloads, how the
 * format is negotiated, and what an unfinished call shows.
 */
describe('transcripts and detail over HTTP', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let agentId: string;
  const path = '/v1/conversations/tr-call-1/transcript';

  beforeAll(async () => {
    system = await startSystem();
    account = await system.createAccount({ voice_platforms: ['platform_a'] });
    const agent = await account.api.post('/v1/agents', { name: 'Subtitles', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    agentId = agent.body.data.id;
    const res = await account.api.post('/v1/call-events', {
      events: [
        event('call.started', 'tr-call-1', agentId, 0, { caller_number: '+14155550100', start_time: at(0) }),
        event('call.transcript', 'tr-call-1', agentId, 3604, { segments: SEGMENTS }),
        event('call.ended', 'tr-call-1', agentId, 3605, { end_time: at(3605), duration: 3605, language: 'en' }),
      ],
    });
    expect(res.status).toBe(202);
    const ready = await pollUntil(
      () => account.api.get(path),
      (r) => r.status === 200 && r.body.data.segments.length === SEGMENTS.length,
      15_000,
    );
    expect(ready.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  });

  describe('segment text cannot break the document structure', () => {
    it('SRT: one cue per segment, arrows defused, zero-length cue lasts 1 ms, hours past one', async () => {
      const res = await account.api.get(`${path}?format=srt`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/x-subrip/);
      expect(blocks(res.text)).toHaveLength(SEGMENTS.length);
      expect(timingLines(res.text)).toEqual([
        '00:00:00,000 --> 00:00:02,000',
        '00:00:02,500 --> 00:00:04,000',
        '00:00:05,000 --> 00:00:05,001',
        '01:00:00,000 --> 01:00:01,500',
        '01:00:02,000 --> 01:00:03,000',
      ]);
      expect(res.text).toContain('\nCaller: x 2 00:00:05,000 -> 00:00:06,000 Injected cue\n');
      expect(res.text).toContain('\nAgent: Hello, how can I help?\n');
      expect(res.text).toContain('\nAgent: Line sep para nel\n');
      expect(res.text).not.toMatch(/[\r\u0085\u2028\u2029]/);
    });

    it('VTT: one cue per segment, text escaped and on one line, zero-length cue lasts 1 ms', async () => {
      const res = await account.api.get(`${path}?format=vtt`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/vtt/);
      expect(blocks(res.text)).toHaveLength(1 + SEGMENTS.length);
      expect(timingLines(res.text)).toEqual([
        '00:00:00.000 --> 00:00:02.000',
        '00:00:02.500 --> 00:00:04.000',
        '00:00:05.000 --> 00:00:05.001',
        '01:00:00.000 --> 01:00:01.500',
        '01:00:02.000 --> 01:00:03.000',
      ]);
      expect(res.text).toContain('\nCaller: y 00:00:07.000 --&gt; 00:00:08.000 Injected too\n');
      expect(res.text).not.toMatch(/[\r\u0085\u2028\u2029]/);
    });

    it('text: exactly one line per segment, whatever line terminator the text held', async () => {
      const res = await account.api.get(`${path}?format=text`);
      expect(res.status).toBe(200);
      const lines = res.text.split(/\r\n|[\r\n\u0085\u2028\u2029]/);
      expect(lines.pop()).toBe('');
      expect(lines).toEqual([
        'Agent: Hello, how can I help?',
        'Caller: x 2 00:00:05,000 --> 00:00:06,000 Injected cue',
        'Agent: Hm.',
        'Caller: y 00:00:07.000 --> 00:00:08.000 Injected too',
        'Agent: Line sep para nel',
      ]);
    });

    it('JSON keeps the stored segments exactly, the zero-length one included', async () => {
      const res = await account.api.get(path);
      expect(res.body.data.segments).toEqual(SEGMENTS);
    });
  });

  describe('format negotiation', () => {
    it.each([
      ['application/json;q=0, */*', 'text/plain'],
      ['application/json;q=0, text/plain;q=0, */*', 'application/x-subrip'],
      ['text/vtt;q=0.9, application/x-subrip;q=0.95', 'application/x-subrip'],
      ['text/*', 'text/plain'],
      ['image/png, text/vtt;q=0.1', 'text/vtt'],
    ])('Accept %s → %s', async (accept, mediaType) => {
      const res = await account.api.get(path, { accept });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')!.split(';')[0]).toBe(mediaType);
      expect(res.headers.get('vary')).toMatch(/accept/i);
    });

    it.each([['image/png'], ['application/json;q=0'], ['*/*;q=0']])('Accept %s admits no format → 406 not_acceptable listing what we serve', async (accept) => {
      const res = await account.api.get(path, { accept });
      expect(res.status).toBe(406);
      expect(res.headers.get('vary')).toMatch(/accept/i);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request',
        code: 'not_acceptable',
        valid_values: ['application/json', 'text/plain', 'application/x-subrip', 'text/vtt'],
        request_id: res.headers.get('x-request-id'),
      });
      for (const mediaType of ['application/json', 'text/plain', 'application/x-subrip', 'text/vtt']) expect(res.body.error.message).toContain(mediaType);
    });

    it('?format= wins over an Accept that admits none of the formats', async () => {
      const res = await account.api.get(`${path}?format=vtt`, { accept: 'image/png' });
      expect(res.status).toBe(200);
      expect(res.text.startsWith('WEBVTT\n')).toBe(true);
    });

    it.each([['SRT', 'application/x-subrip'], ['Vtt', 'text/vtt'], ['TEXT', 'text/plain'], ['JSON', 'application/json']])(
      '?format=%s is case-insensitive',
      async (format, mediaType) => {
        const res = await account.api.get(`${path}?format=${format}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')!.split(';')[0]).toBe(mediaType);
      },
    );

    it('an unknown ?format is still 400 invalid_parameter with valid_values', async () => {
      const res = await account.api.get(`${path}?format=PDF`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', field: 'format', valid_values: ['json', 'text', 'srt', 'vtt'] });
    });
  });

  it('an in_progress conversation returns its partial data: duration, sentiment, topics and transcript so far', async () => {
    const id = 'tr-live-1';
    const res = await account.api.post('/v1/call-events', {
      events: [
        event('call.started', id, agentId, 100, { caller_number: '+14155550177', start_time: at(100) }),
        event('call.progress', id, agentId, 130, { duration: 30, sentiment: 'neutral', topics: ['billing'] }),
        event('call.transcript', id, agentId, 135, { segments: [{ speaker: 'caller', text: 'About my bill…', start_ms: 1_000, end_ms: 3_000 }] }),
        event('call.progress', id, agentId, 160, { duration: 60, sentiment: 'negative', topics: ['billing', 'refund'] }),
      ],
    });
    expect(res.status).toBe(202);

    const detail = await pollUntil(
      () => account.api.get(`/v1/conversations/${id}`),
      (r) => r.status === 200 && r.body.data.duration === 60 && r.body.data.content.transcript.length === 1,
      15_000,
    );
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({
      id,
      agent_id: agentId,
      agent_name: 'Subtitles',
      caller_number: '+14155550177',
      status: 'in_progress',
      start_time: new Date(T0 + 100_000).toISOString(),
      end_time: null,
      duration: 60,
      sentiment: 'negative',
      topics: ['billing', 'refund'],
      outcome: null,
      has_transcript: true,
      content: { transcript: [{ speaker: 'caller', text: 'About my bill…', start_ms: 1_000, end_ms: 3_000 }] },
      analytics: { sentiment: 'negative', topics: ['billing', 'refund'] },
      outcomes: { outcome: null },
      failure_reason: null,
      abandonment_reason: null,
    });

    const listed = await account.api.get('/v1/conversations?status=in_progress');
    expect(listed.body.data.find((c: { id: string }) => c.id === id)).toMatchObject({ duration: 60, sentiment: 'negative', topics: ['billing', 'refund'] });

    const partial = await account.api.get(`/v1/conversations/${id}/transcript?format=text`);
    expect(partial.status).toBe(200);
    expect(partial.text).toBe('Caller: About my bill…\n');
  }, 30_000);
});
