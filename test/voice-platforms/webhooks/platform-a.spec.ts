import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCallEventProblem } from '@voice/contracts';
import type { CallEvent } from '@voice/contracts';
import { attributeToAgent, mapPlatformWebhook, type WebhookMapping } from '@voice/voice-platforms';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const fixture = (name: string): any => JSON.parse(readFileSync(join(fixtures, `platform-a.${name}.json`), 'utf8'));
const map = (body: unknown) => mapPlatformWebhook('platform_a', body);

const CALL_ID = 'call_8f3a2b1c4d5e6f708192a3b4c5d6e7f8';
const AGENT_ID = 'agent_0123456789abcdef0123456789abcdef';
const START = '2026-01-01T00:00:00.000Z';

/** The mapping's events, attributed and each checked against the contract. */
function eventsOf(mapping: WebhookMapping): CallEvent[] {
  if (mapping.result !== 'mapped') throw new Error(`expected mapped, got ${JSON.stringify(mapping)}`);
  const events = attributeToAgent(mapping.events, 'agt_1');
  for (const event of events) expect([event.id, findCallEventProblem(event)]).toEqual([event.id, undefined]);
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  return events;
}
const only = (events: CallEvent[], type: CallEvent['type']) => events.filter((e) => e.type === type);

/** call_ended with the given reason and transcript (the fixture's, or who spoke what). */
function ended(reason: string | undefined, turns?: Array<['agent' | 'user', string]>, extra: Record<string, unknown> = {}) {
  const body = fixture('call-ended');
  if (reason === undefined) delete body.call.disconnection_reason;
  else body.call.disconnection_reason = reason;
  if (turns) body.call.transcript_object = turns.map(([role, content], i) => ({ role, content, words: [{ word: content, start: i, end: i + 0.5 }] }));
  Object.assign(body.call, extra);
  return body;
}

describe('platform_a webhooks', () => {
  it('call_started → call.started at start_timestamp', () => {
    const mapping = map(fixture('call-started'));
    expect(mapping).toMatchObject({ result: 'mapped', event_type: 'call_started', platform_agent_id: AGENT_ID, platform_call_id: CALL_ID, conversation_id: CALL_ID });
    expect(eventsOf(mapping)).toEqual([{
      id: `pa:${CALL_ID}:call.started`, type: 'call.started', conversation_id: CALL_ID, agent_id: 'agt_1', occurred_at: START,
      data: { caller_number: '+14155550123', start_time: START, platform_call_id: CALL_ID },
    }]);
  });

  it.each([['withheld', undefined], ['not E.164', 'anonymous'], ['not a string', 14155550123]])('call_started with the caller %s → no caller_number', (_, from) => {
    const body = fixture('call-started');
    body.call.from_number = from;
    const [event] = eventsOf(map(body));
    expect(event.data).toEqual({ start_time: START, platform_call_id: CALL_ID });
  });

  it('transcript_updated → a provisional call.transcript placed at the end of the last word', () => {
    const [event] = eventsOf(map(fixture('transcript-updated')));
    expect(event).toMatchObject({ type: 'call.transcript', occurred_at: '2026-01-01T00:00:08.250Z', data: { provisional: true } });
    expect(event.id).toMatch(new RegExp(`^pa:${CALL_ID}:call\\.transcript:u2-[0-9a-f]{16}$`));
    expect(event.data).toEqual({
      provisional: true,
      segments: [
        { speaker: 'agent', text: 'Hello, thanks for calling. How can I help you today?', start_ms: 600, end_ms: 4050 },
        { speaker: 'caller', text: "Hi, I'd like to check the status of my order.", start_ms: 4800, end_ms: 8250 },
      ],
    });
  });

  it('each transcript_updated has its own id; a retry has the same one', () => {
    const two = fixture('transcript-updated');
    const three = fixture('call-ended');
    three.event = 'transcript_updated';
    three.call.transcript_object = three.call.transcript_object.slice(0, 3);
    const ids = [two, three, two].map((body) => eventsOf(map(body))[0].id);
    expect(ids[0]).not.toBe(ids[1]);
    expect(ids[2]).toBe(ids[0]);
  });

  it('an utterance without words is placed where the previous one ended, with no length; unknown roles are skipped', () => {
    const body = fixture('transcript-updated');
    body.call.transcript_object.push({ role: 'agent', content: 'One moment.' }, { role: 'tool_call_invocation', content: 7 }, { role: 'user', content: 'Sure.', words: [] });
    const [event] = eventsOf(map(body));
    expect((event.data as { segments: unknown[] }).segments.slice(2)).toEqual([
      { speaker: 'agent', text: 'One moment.', start_ms: 8250, end_ms: 8250 },
      { speaker: 'caller', text: 'Sure.', start_ms: 8250, end_ms: 8250 },
    ]);
  });

  it('call_ended → call.ended with the caller, the start, the platform details, and the full transcript (not provisional)', () => {
    const events = eventsOf(map(fixture('call-ended')));
    expect(events.map((e) => e.type)).toEqual(['call.ended', 'call.transcript']);
    expect(events[0]).toEqual({
      id: `pa:${CALL_ID}:call.ended:call_ended`, type: 'call.ended', conversation_id: CALL_ID, agent_id: 'agt_1', occurred_at: '2026-01-01T00:00:15.350Z',
      data: {
        end_time: '2026-01-01T00:00:15.350Z',
        duration: 15,
        caller_number: '+14155550123',
        start_time: '2026-01-01T00:00:00.000Z',
        platform_call_id: CALL_ID,
        end_reason: 'agent_hangup',
        cost: { amount: 0.1234, currency: 'USD', breakdown: [{ component: 'voice_engine', amount: 0.0617 }, { component: 'llm', amount: 0.037 }, { component: 'telephony', amount: 0.0247 }] },
        latency: [
          { component: 'e2e', p50_ms: 820, p90_ms: 1150, p99_ms: 1480 },
          { component: 'llm', p50_ms: 430, p90_ms: 610, p99_ms: 890 },
          { component: 'tts', p50_ms: 180, p90_ms: 240, p99_ms: 320 },
          { component: 'asr', p50_ms: 120, p90_ms: 170, p99_ms: 230 },
        ],
        recording_url: `https://recordings.platform-a.example/${CALL_ID}.wav`,
      },
    });
    expect(events[1]).toMatchObject({ occurred_at: '2026-01-01T00:00:15.350Z', data: { segments: expect.any(Array) } });
    expect(events[1].data).not.toHaveProperty('provisional');
    expect((events[1].data as { segments: unknown[] }).segments).toHaveLength(4);
  });

  it('call_analyzed → the same end, refined with the analysis, 1 ms later; the transcript event is the very same', () => {
    const endedEvents = eventsOf(map(fixture('call-ended')));
    const analyzed = eventsOf(map(fixture('call-analyzed')));
    expect(analyzed[0]).toEqual({
      ...endedEvents[0],
      id: `pa:${CALL_ID}:call.ended:call_analyzed`,
      occurred_at: '2026-01-01T00:00:15.351Z',
      data: {
        ...endedEvents[0].data,
        summary: 'The caller asked about order 4821; it ships tomorrow.',
        sentiment: 'positive',
        outcome: 'order_status_provided',
        topics: ['order_status', 'shipping'],
      },
    });
    expect(analyzed[1]).toEqual(endedEvents[1]);
  });

  it.each([
    ['Positive', 'positive'], ['Neutral', 'neutral'], ['Negative', 'negative'], ['Unknown', undefined], ['Furious', undefined], [3, undefined],
  ])('user_sentiment %p → sentiment %p', (given, expected) => {
    const body = fixture('call-analyzed');
    body.call.call_analysis.user_sentiment = given;
    expect((eventsOf(map(body))[0].data as { sentiment?: string }).sentiment).toBe(expected);
  });

  it.each([
    ['Appointment Booked', 'agent_hangup', true, 'appointment_booked'],
    ['refundIssued', 'agent_hangup', true, 'refund_issued'],
    ['42', 'agent_hangup', true, 'resolved'],
    [undefined, 'agent_hangup', false, 'unresolved'],
    [undefined, 'call_transfer', true, 'transferred'],
    [undefined, 'voicemail_reached', false, 'voicemail'],
    ['callback_requested', 'call_transfer', true, 'callback_requested'],
    [undefined, 'agent_hangup', undefined, undefined],
  ])('outcome label %p, reason %p, call_successful %p → outcome %p', (label, reason, successful, expected) => {
    const body = ended(reason);
    body.event = 'call_analyzed';
    body.call.call_analysis = { call_successful: successful, custom_analysis_data: { outcome: label } };
    expect((eventsOf(map(body))[0].data as { outcome?: string }).outcome).toBe(expected);
  });

  it('topics: strings only, trimmed, deduplicated, 1..100 characters, at most 50', () => {
    const body = fixture('call-analyzed');
    const many = Array.from({ length: 60 }, (_, i) => `topic ${i}`);
    body.call.call_analysis.custom_analysis_data.topics = [' billing ', 'Billing', '', 7, 'x'.repeat(101), ...many];
    const topics = (eventsOf(map(body))[0].data as { topics: string[] }).topics;
    expect(topics.slice(0, 2)).toEqual(['billing', 'topic 0']);
    expect(topics).toHaveLength(50);
  });

  it('drops a recording URL that is not http(s), and costs and latency that are not numbers', () => {
    const body = ended('agent_hangup', undefined, {
      recording_url: 'ftp://example.com/a.wav',
      call_cost: { combined_cost: 'free', product_costs: [{ product: 'llm', cost: 2 }] },
      latency: { e2e: { p50: 'fast' }, llm: { p50: 400, p90: -1 } },
    });
    const { data } = eventsOf(map(body))[0];
    expect(data).not.toHaveProperty('recording_url');
    expect(data).not.toHaveProperty('cost');
    expect(data).toHaveProperty('latency', [{ component: 'llm', p50_ms: 400 }]);
  });

  describe('the status table', () => {
    const agentSpoke: Array<['agent' | 'user', string]> = [['agent', 'Hello, how can I help?'], ['user', 'Bye.']];
    const callerOnly: Array<['agent' | 'user', string]> = [['user', 'Hello? Anyone?']];
    const silent: Array<['agent' | 'user', string]> = [];
    it.each([
      ['dial_busy', silent, 'call.abandoned', { reason: 'busy' }],
      ['dial_no_answer', silent, 'call.abandoned', { reason: 'no_answer' }],
      ['user_hangup', callerOnly, 'call.abandoned', { reason: 'caller_hangup' }],
      ['user_hangup', silent, 'call.abandoned', { reason: 'caller_hangup' }],
      ['user_hangup', agentSpoke, 'call.ended', {}],
      ['dial_failed', silent, 'call.failed', { failure_reason: 'dial_failed' }],
      ['concurrency_limit_reached', silent, 'call.failed', { failure_reason: 'concurrency_limit_reached' }],
      ['error_llm_websocket_open', agentSpoke, 'call.failed', { failure_reason: 'error_llm_websocket_open' }],
      ['error_asr', silent, 'call.failed', { failure_reason: 'error_asr' }],
      ['error_no_audio_received', silent, 'call.failed', { failure_reason: 'error_no_audio_received' }],
      ['error_unknown', agentSpoke, 'call.failed', { failure_reason: 'error_unknown' }],
      ['agent_hangup', agentSpoke, 'call.ended', {}],
      ['call_transfer', agentSpoke, 'call.ended', { outcome: 'transferred' }],
      ['voicemail_reached', silent, 'call.ended', { outcome: 'voicemail' }],
      ['inactivity', silent, 'call.ended', {}],
      ['max_duration_reached', agentSpoke, 'call.ended', {}],
      ['llm_refused_to_talk', agentSpoke, 'call.ended', {}],
      ['llm_refused_to_talk', callerOnly, 'call.failed', { failure_reason: 'llm_refused_to_talk' }],
    ])('%s (%j) → %s %j, the raw reason kept', (reason, turns, type, fields) => {
      for (const event of ['call_ended', 'call_analyzed']) {
        const body = ended(reason, turns);
        body.event = event;
        const events = eventsOf(map(body));
        expect(events[0]).toMatchObject({ type, data: { ...fields, end_reason: reason, end_time: '2026-01-01T00:00:15.350Z', platform_call_id: CALL_ID } });
        expect(only(events, 'call.transcript')).toHaveLength(turns.length > 0 ? 1 : 0);
      }
    });

    it('an abandoned call keeps the caller, start and end; a withheld caller is left out', () => {
      const [abandoned] = eventsOf(map(ended('dial_busy', [])));
      expect(abandoned.data).toMatchObject({ reason: 'busy', caller_number: '+14155550123', start_time: START, end_time: '2026-01-01T00:00:15.350Z' });
      const withheld = ended('dial_no_answer', []);
      delete withheld.call.from_number;
      expect(eventsOf(map(withheld))[0].data).not.toHaveProperty('caller_number');
    });

    it('a failed call keeps the caller, start, recording and analysis its messages hold (its call_started may never arrive)', () => {
      const body = fixture('call-analyzed');
      body.call.disconnection_reason = 'error_asr';
      body.call.call_status = 'error';
      const [failed] = eventsOf(map(body));
      expect(failed).toMatchObject({
        type: 'call.failed',
        data: {
          failure_reason: 'error_asr', caller_number: '+14155550123', start_time: START, duration: 15,
          recording_url: `https://recordings.platform-a.example/${CALL_ID}.wav`,
          summary: 'The caller asked about order 4821; it ships tomorrow.', sentiment: 'positive', topics: ['order_status', 'shipping'],
        },
      });
      expect(failed.data).not.toHaveProperty('outcome');
    });

    it('no reason at all: completed if the agent spoke, else failed ("unknown")', () => {
      expect(eventsOf(map(ended(undefined, agentSpoke)))[0].type).toBe('call.ended');
      expect(eventsOf(map(ended(undefined, silent)))[0]).toMatchObject({ type: 'call.failed', data: { failure_reason: 'unknown' } });
    });
  });

  it('times: without end_timestamp, start + duration_ms; without either, start + the last word', () => {
    const noEnd = ended('agent_hangup', undefined, { end_timestamp: undefined, duration_ms: 20_400 });
    expect(eventsOf(map(noEnd))[0]).toMatchObject({ occurred_at: '2026-01-01T00:00:20.400Z', data: { end_time: '2026-01-01T00:00:20.400Z', duration: 20 } });
    const neither = ended('agent_hangup', undefined, { end_timestamp: undefined, duration_ms: undefined });
    const [event] = eventsOf(map(neither));
    expect(event).toMatchObject({ occurred_at: '2026-01-01T00:00:14.550Z' });
    expect(event.data).not.toHaveProperty('duration');
    const noStart = ended('agent_hangup', undefined, { duration_ms: undefined, start_timestamp: undefined });
    expect(eventsOf(map(noStart))[0].data).not.toHaveProperty('duration');
  });

  it('a text over 10,000 characters becomes several segments with the same times (distinct starts while provisional)', () => {
    const long = `${'word '.repeat(2500)}${'x'.repeat(9000)}`;
    const body = ended('agent_hangup', [['agent', long]]);
    const [, transcript] = eventsOf(map(body));
    const segments = (transcript.data as { segments: Array<{ text: string; start_ms: number; end_ms: number }> }).segments;
    expect(segments.length).toBe(3);
    expect(segments.map((s) => s.text).join('')).toBe(long);
    expect(new Set(segments.map((s) => `${s.start_ms}-${s.end_ms}`))).toEqual(new Set(['0-500']));
    body.event = 'transcript_updated';
    const [live] = eventsOf(map(body));
    expect((live.data as { segments: Array<{ start_ms: number }> }).segments.map((s) => s.start_ms)).toEqual([0, 1, 2]);
  });

  it('a call id the contract cannot take as a conversation id is hashed, in event ids too', () => {
    const body = fixture('call-ended');
    body.call.call_id = `call with spaces ${'x'.repeat(200)}`;
    const mapping = map(body);
    const events = eventsOf(mapping);
    expect(mapping).toMatchObject({ platform_call_id: body.call.call_id, conversation_id: expect.stringMatching(/^call-[0-9a-f]{40}$/) });
    expect(events[0].id).toMatch(/^pa:call-[0-9a-f]{40}:call\.ended:call_ended$/);
    expect(events[0].data).not.toHaveProperty('platform_call_id');
  });

  it.each([
    ['an unknown event type', fixture('unknown-event'), /^event type "call_recording_ready" is not handled$/],
    ['an unknown event type without a call', { event: 'phone_number_updated', number: '+1' }, /not handled/],
    ['an empty transcript', { ...fixture('transcript-updated'), call: { ...fixture('transcript-updated').call, transcript_object: [] } }, /transcript is empty/],
    ['a transcript of blank utterances', { ...fixture('transcript-updated'), call: { ...fixture('transcript-updated').call, transcript_object: [{ role: 'agent', content: '  ' }] } }, /transcript is empty/],
    ['call_started without start_timestamp', { ...fixture('call-started'), call: { ...fixture('call-started').call, start_timestamp: undefined } }, /start_timestamp is missing/],
    ['call_ended without any time', ended('agent_hangup', undefined, { start_timestamp: undefined, end_timestamp: undefined }), /cannot be placed in time/],
  ])('ignores %s', (_, body, reason) => {
    const mapping = map(body);
    expect(mapping).toMatchObject({ result: 'ignored', reason: expect.stringMatching(reason) });
  });

  it('an ignored webhook names what it can, in characters that can be stored', () => {
    expect(map({ event: 'new\u0000type', call: { call_id: 7, agent_id: 'a\uDC00' } })).toEqual({
      result: 'ignored', reason: 'event type "new\\u0000type" is not handled', event_type: 'new\uFFFDtype', platform_agent_id: 'a\uFFFD', platform_call_id: null,
    });
  });

  it('an ignored webhook still names the call and agent when the body has them', () => {
    expect(map(fixture('unknown-event'))).toEqual({
      result: 'ignored', reason: 'event type "call_recording_ready" is not handled', event_type: 'call_recording_ready', platform_agent_id: AGENT_ID, platform_call_id: CALL_ID,
    });
  });

  const withCall = (call: Record<string, unknown>) => ({ event: 'call_ended', call: { ...fixture('call-ended').call, ...call } });
  it.each([
    [null, 'body must be a JSON object'],
    [[], 'body must be a JSON object'],
    ['call_ended', 'body must be a JSON object'],
    [42, 'body must be a JSON object'],
    [{}, 'event is missing'],
    [{ event: 7, call: {} }, 'event must be a string'],
    [{ event: 'call_started' }, 'call is missing'],
    [{ event: 'call_started', call: [] }, 'call must be an object, not an array'],
    [withCall({ call_id: undefined }), 'call.call_id is missing'],
    [withCall({ call_id: 12 }), 'call.call_id must be a string, not a number'],
    [withCall({ call_id: ' ' }), 'call.call_id is empty'],
    [withCall({ call_id: 'call\u0000' }), 'call.call_id contains a character that cannot be stored'],
    [withCall({ agent_id: '\uD800agent' }), 'call.agent_id contains a character that cannot be stored'],
    [withCall({ agent_id: undefined }), 'call.agent_id is missing'],
    [withCall({ start_timestamp: '2026-01-01' }), 'call.start_timestamp must be a finite number, not a string'],
    [withCall({ end_timestamp: 1e300 }), 'call.end_timestamp is not a Unix time in milliseconds'],
    [withCall({ disconnection_reason: ['user_hangup'] }), 'call.disconnection_reason must be a string, not an array'],
    [withCall({ transcript_object: {} }), 'call.transcript_object must be an array, not an object'],
    [withCall({ transcript_object: ['hi'] }), 'call.transcript_object[0] must be an object'],
    [withCall({ transcript_object: [{ role: 'agent', content: 'Hi', words: [{ word: 'Hi', start: '0.1' }] }] }), 'call.transcript_object[0].words[0].start must be a finite number, not a string'],
  ])('malformed: %j → %s', (body, reason) => {
    expect(map(body)).toEqual({ result: 'malformed', reason });
  });
});
