import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCallEventProblem } from '@voice/contracts';
import type { CallEvent } from '@voice/contracts';
import { attributeToAgent, mapPlatformWebhook, type WebhookMapping } from '@voice/voice-platforms';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const fixture = (name: string): any => JSON.parse(readFileSync(join(fixtures, `platform-b.${name}.json`), 'utf8'));
const map = (body: unknown) => mapPlatformWebhook('platform_b', body);

const CALL_ID = '5b0e8c2a-3f1d-4e6a-9b7c-2d4e6f8a0b1c';
const ASSISTANT_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const START = '2026-01-01T00:00:00.000Z';
const END = '2026-01-01T00:00:15.350Z';

function eventsOf(mapping: WebhookMapping): CallEvent[] {
  if (mapping.result !== 'mapped') throw new Error(`expected mapped, got ${JSON.stringify(mapping)}`);
  const events = attributeToAgent(mapping.events, 'agt_1');
  for (const event of events) expect([event.id, findCallEventProblem(event)]).toEqual([event.id, undefined]);
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  return events;
}
const byType = (events: CallEvent[]) => Object.fromEntries(events.map((e) => [e.type, e]));

/** The end-of-call report with the given reason and messages (the fixture's, or who said what). */
function report(reason: string | undefined, turns?: Array<['bot' | 'user', string]>) {
  const body = fixture('end-of-call-report');
  if (reason === undefined) delete body.message.endedReason;
  else body.message.endedReason = reason;
  if (turns) body.message.artifact.messages = turns.map(([role, message], i) => ({ role, message, secondsFromStart: i, duration: 500 }));
  delete body.message.analysis.structuredData.outcome;
  return body;
}
function statusEnded(reason: string) {
  const body = fixture('status-update-ended');
  body.message.endedReason = reason;
  return body;
}

describe('platform_b webhooks', () => {
  it('status-update in-progress → call.started at message.timestamp', () => {
    const mapping = map(fixture('status-update-in-progress'));
    expect(mapping).toMatchObject({ result: 'mapped', event_type: 'status-update', platform_agent_id: ASSISTANT_ID, platform_call_id: CALL_ID, conversation_id: CALL_ID });
    expect(eventsOf(mapping)).toEqual([{
      id: `pb:${CALL_ID}:call.started:in-progress`, type: 'call.started', conversation_id: CALL_ID, agent_id: 'agt_1', occurred_at: '2026-01-01T00:00:00.150Z',
      data: { caller_number: '+14155550123', start_time: '2026-01-01T00:00:00.150Z', platform_call_id: CALL_ID },
    }]);
  });

  it.each([['withheld', {}], ['not E.164', { number: 'anonymous' }], ['no customer at all', undefined]])('in-progress with the caller %s → no caller_number', (_, customer) => {
    const body = fixture('status-update-in-progress');
    body.message.call.customer = customer;
    expect(eventsOf(map(body))[0].data).toEqual({ start_time: '2026-01-01T00:00:00.150Z', platform_call_id: CALL_ID });
  });

  it.each(['ringing', 'queued', 'forwarding', 'paused-for-maintenance'])('status-update %s → ignored', (status) => {
    const body = fixture('status-update-ringing');
    body.message.status = status;
    expect(map(body)).toEqual({
      result: 'ignored', reason: `status "${status}" is not mapped: only in-progress and ended change a conversation`,
      event_type: 'status-update', platform_agent_id: ASSISTANT_ID, platform_call_id: CALL_ID,
    });
  });

  it('a final transcript → a provisional call.transcript anchored at its occurred_at', () => {
    const [event] = eventsOf(map(fixture('transcript-final')));
    expect(event).toEqual({
      id: expect.stringMatching(new RegExp(`^pb:${CALL_ID}:call\\.transcript:t1767225603900-agent-[0-9a-f]{16}$`)),
      type: 'call.transcript', conversation_id: CALL_ID, agent_id: 'agt_1', occurred_at: '2026-01-01T00:00:03.900Z',
      data: { provisional: true, anchor: 'occurred_at', segments: [{ speaker: 'agent', text: 'Hello, thanks for calling. How can I help you today?', start_ms: 0, end_ms: 0 }] },
    });
    const user = fixture('transcript-final');
    user.message.role = 'user';
    expect(eventsOf(map(user))[0].data).toMatchObject({ segments: [{ speaker: 'caller' }] });
    expect(eventsOf(map(user))[0].id).not.toBe(event.id);
  });

  it.each([
    ['a partial transcript', fixture('transcript-partial'), 'partial transcript: superseded by the final one'],
    ['a transcript of an unknown type', { message: { ...fixture('transcript-final').message, transcriptType: 'interim' } }, 'transcriptType "interim" is not handled'],
    ['a transcript of an unknown role', { message: { ...fixture('transcript-final').message, role: 'tool' } }, 'role "tool" is not handled'],
    ['a blank transcript', { message: { ...fixture('transcript-final').message, transcript: '   ' } }, 'the transcript is empty'],
    ['a transcript without timestamp', { message: { ...fixture('transcript-final').message, timestamp: undefined } }, 'message.timestamp is missing: the event cannot be placed in time'],
    ['an unknown message type', fixture('unknown-event'), 'event type "speech-update" is not handled'],
  ])('ignores %s', (_, body, reason) => {
    expect(map(body)).toMatchObject({ result: 'ignored', reason, event_type: body.message.type, platform_call_id: CALL_ID, platform_agent_id: ASSISTANT_ID });
  });

  it('status-update ended → the terminal event at message.timestamp, with the caller, the raw reason and no duration', () => {
    const events = eventsOf(map(fixture('status-update-ended')));
    expect(events).toEqual([{
      id: `pb:${CALL_ID}:call.ended:ended`, type: 'call.ended', conversation_id: CALL_ID, agent_id: 'agt_1', occurred_at: END,
      data: { end_time: END, caller_number: '+14155550123', platform_call_id: CALL_ID, end_reason: 'assistant-ended-call' },
    }]);
  });

  it('end-of-call-report → the terminal event with everything (caller and start too), call.started at startedAt, the full transcript', () => {
    const mapping = map(fixture('end-of-call-report'));
    const events = eventsOf(mapping);
    expect(events.map((e) => e.type)).toEqual(['call.ended', 'call.started', 'call.transcript']);
    const { 'call.ended': ended, 'call.started': started, 'call.transcript': transcript } = byType(events);
    expect(ended).toEqual({
      id: `pb:${CALL_ID}:call.ended:report`, type: 'call.ended', conversation_id: CALL_ID, agent_id: 'agt_1', occurred_at: '2026-01-01T00:00:15.750Z',
      data: {
        end_time: END,
        duration: 15,
        caller_number: '+14155550123',
        start_time: START,
        platform_call_id: CALL_ID,
        end_reason: 'assistant-ended-call',
        cost: { amount: 0.0215, currency: 'USD', breakdown: [
          { component: 'stt', amount: 0.0032 }, { component: 'llm', amount: 0.0065 }, { component: 'tts', amount: 0.0075 }, { component: 'transport', amount: 0.0043 },
        ] },
        latency: [
          { component: 'turn', average_ms: 950 }, { component: 'model', average_ms: 480 }, { component: 'voice', average_ms: 210 }, { component: 'transcriber', average_ms: 140 },
        ],
        recording_url: `https://storage.platform-b.example/recordings/${CALL_ID}.wav`,
        summary: 'The caller asked about order 4821.',
        sentiment: 'positive',
        outcome: 'order_status_provided',
        topics: ['order_status', 'shipping'],
      },
    });
    expect(started).toEqual({
      id: `pb:${CALL_ID}:call.started:report`, type: 'call.started', conversation_id: CALL_ID, agent_id: 'agt_1', occurred_at: START,
      data: { caller_number: '+14155550123', start_time: START, platform_call_id: CALL_ID },
    });
    expect(transcript).toMatchObject({ occurred_at: '2026-01-01T00:00:15.750Z', id: expect.stringMatching(/:call\.transcript:full-[0-9a-f]{16}$/) });
    expect(transcript.data).toEqual({
      segments: [
        { speaker: 'agent', text: 'Hello, thanks for calling. How can I help you today?', start_ms: 600, end_ms: 4050 },
        { speaker: 'caller', text: "Hi, I'd like to check the status of my order.", start_ms: 4750, end_ms: 8200 },
        { speaker: 'agent', text: 'Sure, could you give me the order number?', start_ms: 8900, end_ms: 11650 },
        { speaker: 'caller', text: 'It is four eight two one.', start_ms: 12350, end_ms: 14400 },
      ],
    });
  });

  it('a report comes after the end: stamped before endedAt (at the call\'s start) or not at all, it is placed 1 ms after endedAt', () => {
    const afterEnd = '2026-01-01T00:00:15.351Z';
    for (const timestamp of [Date.parse(START), Date.parse(END), undefined]) {
      const body = fixture('end-of-call-report');
      if (timestamp === undefined) delete body.message.timestamp;
      else body.message.timestamp = timestamp;
      const events = eventsOf(map(body));
      expect(events.filter((e) => e.type !== 'call.started').map((e) => e.occurred_at)).toEqual([afterEnd, afterEnd]);
      expect(events.find((e) => e.type === 'call.started')!.occurred_at).toBe(START);
    }
  });

  it('the report without secondsFromStart/duration places messages by time and endTime', () => {
    const body = fixture('end-of-call-report');
    for (const m of body.message.artifact.messages) {
      delete m.secondsFromStart;
      delete m.duration;
    }
    const transcript = byType(eventsOf(map(body)))['call.transcript'];
    expect((transcript.data as { segments: Array<{ start_ms: number; end_ms: number }> }).segments[1]).toMatchObject({ start_ms: 4750, end_ms: 8200 });
  });

  it.each([
    [{ sentiment: 'Negative' }, 'negative'], [{ sentiment: 'frustrated' }, undefined], [{}, undefined],
  ])('structuredData %j → sentiment %p', (structuredData, expected) => {
    const body = fixture('end-of-call-report');
    body.message.analysis.structuredData = structuredData;
    expect((byType(eventsOf(map(body)))['call.ended'].data as { sentiment?: string }).sentiment).toBe(expected);
  });

  it.each([
    [undefined, 'assistant-ended-call', 'true', 'resolved'],
    [undefined, 'assistant-ended-call', false, 'unresolved'],
    [undefined, 'assistant-ended-call', '8/10', undefined],
    [undefined, 'assistant-forwarded-call', 'true', 'transferred'],
    [undefined, 'voicemail', 'false', 'voicemail'],
    ['Callback Requested', 'voicemail', 'false', 'callback_requested'],
    ['!!!', 'assistant-ended-call', 'false', 'unresolved'],
  ])('outcome %p, reason %p, successEvaluation %p → %p', (outcome, reason, successEvaluation, expected) => {
    const body = report(reason);
    body.message.analysis = { structuredData: { outcome }, successEvaluation };
    expect((byType(eventsOf(map(body)))['call.ended'].data as { outcome?: string }).outcome).toBe(expected);
  });

  it('cost: the total when no cost is given; new breakdown parts are kept, the total never is', () => {
    const body = fixture('end-of-call-report');
    delete body.message.cost;
    body.message.costBreakdown = { llm: 0.01, vapi: 0.005, total: 0.02, analysisCostBreakdown: { summary: 0.001 } };
    expect(byType(eventsOf(map(body)))['call.ended'].data).toMatchObject({
      cost: { amount: 0.02, currency: 'USD', breakdown: [{ component: 'llm', amount: 0.01 }, { component: 'vapi', amount: 0.005 }] },
    });
  });

  describe('the status table', () => {
    const spoke: Array<['bot' | 'user', string]> = [['bot', 'Hi, how can I help?'], ['user', 'Bye.']];
    const callerOnly: Array<['bot' | 'user', string]> = [['user', 'Hello?']];
    const silent: Array<['bot' | 'user', string]> = [];
    it.each([
      ['customer-busy', silent, 'call.abandoned', { reason: 'busy' }],
      ['customer-did-not-answer', silent, 'call.abandoned', { reason: 'no_answer' }],
      ['customer-ended-call', callerOnly, 'call.abandoned', { reason: 'caller_hangup' }],
      ['customer-ended-call', silent, 'call.abandoned', { reason: 'caller_hangup' }],
      ['customer-ended-call', spoke, 'call.ended', {}],
      ['pipeline-error-openai-llm-failed', spoke, 'call.failed', { failure_reason: 'pipeline-error-openai-llm-failed' }],
      ['pipeline-error-deepgram-transcriber-failed', silent, 'call.failed', { failure_reason: 'pipeline-error-deepgram-transcriber-failed' }],
      ['phone-call-provider-closed-websocket', spoke, 'call.failed', { failure_reason: 'phone-call-provider-closed-websocket' }],
      ['twilio-failed-to-connect-call', silent, 'call.failed', { failure_reason: 'twilio-failed-to-connect-call' }],
      ['assistant-ended-call', spoke, 'call.ended', {}],
      ['assistant-said-end-call-phrase', spoke, 'call.ended', {}],
      ['assistant-forwarded-call', spoke, 'call.ended', { outcome: 'transferred' }],
      ['silence-timed-out', silent, 'call.ended', {}],
      ['exceeded-max-duration', spoke, 'call.ended', {}],
      ['voicemail', silent, 'call.ended', { outcome: 'voicemail' }],
      ['manually-canceled', silent, 'call.ended', {}],
      ['assistant-request-returned-forwarding-phone-number', spoke, 'call.ended', {}],
      ['assistant-request-returned-forwarding-phone-number', callerOnly, 'call.failed', { failure_reason: 'assistant-request-returned-forwarding-phone-number' }],
    ])('end-of-call-report %s (%j) → %s %j, the raw reason kept', (reason, turns, type, fields) => {
      const events = eventsOf(map(report(reason, turns)));
      expect(events[0]).toMatchObject({ type, data: { ...fields, end_reason: reason, end_time: END, platform_call_id: CALL_ID } });
      expect(events.filter((e) => e.type === 'call.started')).toHaveLength(type === 'call.abandoned' ? 0 : 1);
      expect(events.filter((e) => e.type === 'call.transcript')).toHaveLength(turns.length > 0 ? 1 : 0);
      if (type === 'call.ended') expect(events[0].data).toHaveProperty('duration', 15);
    });

    it.each([
      ['customer-busy', 'call.abandoned', { reason: 'busy' }],
      ['customer-did-not-answer', 'call.abandoned', { reason: 'no_answer' }],
      ['pipeline-error-openai-llm-failed', 'call.failed', { failure_reason: 'pipeline-error-openai-llm-failed' }],
      ['phone-call-provider-closed-websocket', 'call.failed', {}],
      ['twilio-failed-to-connect-call', 'call.failed', {}],
      ['assistant-ended-call', 'call.ended', {}],
      ['assistant-forwarded-call', 'call.ended', { outcome: 'transferred' }],
      ['voicemail', 'call.ended', { outcome: 'voicemail' }],
      ['silence-timed-out', 'call.ended', {}],
    ])('status-update ended %s → %s %j', (reason, type, fields) => {
      const [event] = eventsOf(map(statusEnded(reason)));
      expect(event).toMatchObject({ id: `pb:${CALL_ID}:${type}:ended`, type, data: { ...fields, end_reason: reason, end_time: END } });
      expect(event.data).not.toHaveProperty('duration');
    });

    it.each(['customer-ended-call', 'some-brand-new-reason'])('status-update ended %s: whether the assistant spoke is unknown → ignored, the report decides', (reason) => {
      expect(map(statusEnded(reason))).toMatchObject({ result: 'ignored', reason: expect.stringMatching(/the end-of-call-report decides$/) });
      const withMessages = statusEnded(reason);
      withMessages.message.artifact = { messages: [{ role: 'user', message: 'Hello?' }] };
      expect(eventsOf(map(withMessages))[0].type).toBe(reason === 'customer-ended-call' ? 'call.abandoned' : 'call.failed');
    });

    it('an abandoned call keeps the caller, start and end; a withheld caller is left out', () => {
      const [abandoned] = eventsOf(map(report('customer-busy', [])));
      expect(abandoned.data).toMatchObject({ reason: 'busy', caller_number: '+14155550123', start_time: START, end_time: END });
      const withheld = report('customer-did-not-answer', []);
      withheld.message.call.customer = {};
      expect(eventsOf(map(withheld))[0].data).not.toHaveProperty('caller_number');
    });
  });

  it('without endedAt the report ends at message.timestamp; without startedAt there is no duration and no call.started', () => {
    const body = fixture('end-of-call-report');
    delete body.message.endedAt;
    delete body.message.startedAt;
    const events = eventsOf(map(body));
    expect(events.map((e) => e.type)).toEqual(['call.ended', 'call.transcript']);
    expect(events[0].data).toMatchObject({ end_time: '2026-01-01T00:00:15.750Z' });
    expect(events[0].data).not.toHaveProperty('duration');
  });

  const withMessage = (name: string, message: Record<string, unknown>) => ({ message: { ...fixture(name).message, ...message } });
  const withCall = (call: Record<string, unknown>) => withMessage('end-of-call-report', { call: { ...fixture('end-of-call-report').message.call, ...call } });
  it.each([
    [null, 'body must be a JSON object'],
    ['[]', 'body must be a JSON object'],
    [{}, 'message is missing'],
    [{ message: 'status-update' }, 'message must be an object, not a string'],
    [{ message: {} }, 'message.type is missing'],
    [{ message: { type: ['transcript'] } }, 'message.type must be a string'],
    [withMessage('status-update-ended', { call: undefined }), 'message.call is missing'],
    [withCall({ id: undefined }), 'message.call.id is missing'],
    [withCall({ id: 5 }), 'message.call.id must be a string, not a number'],
    [withCall({ assistantId: undefined }), 'message.call.assistantId is missing'],
    [withCall({ assistantId: '' }), 'message.call.assistantId is empty'],
    [withMessage('status-update-ended', { status: undefined }), 'message.status is missing'],
    [withMessage('status-update-ended', { timestamp: '2026-01-01T00:00:00Z' }), 'message.timestamp must be a finite number, not a string'],
    [withMessage('transcript-final', { transcriptType: undefined }), 'message.transcriptType is missing'],
    [withMessage('transcript-final', { transcript: 42 }), 'message.transcript must be a string, not a number'],
    [withMessage('end-of-call-report', { endedAt: 'yesterday' }), 'message.endedAt must be an ISO 8601 timestamp with a time zone'],
    [withMessage('end-of-call-report', { endedReason: false }), 'message.endedReason must be a string, not a boolean'],
    [withMessage('end-of-call-report', { artifact: { messages: [{ role: 'bot', message: 'Hi', secondsFromStart: '1' }] } }), 'message.artifact.messages[0].secondsFromStart must be a finite number, not a string'],
  ])('malformed: %j → %s', (body, reason) => {
    expect(map(body)).toEqual({ result: 'malformed', reason });
  });
});
