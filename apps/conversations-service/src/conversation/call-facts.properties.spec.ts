/**
 * Every fact a platform sent about a call ends up in its record, whatever the order, timing or duplication
 * of the deliveries. Generated call histories of both platforms (every message type platforms.md names,
 * calls ending every way, some messages never delivered — the start among them —, timestamps equal to
 * each other or out of the call's order) are mapped to call events by the platform mapping and folded:
 * - any permutation with duplicates folds, field by field, to the record of the history delivered in
 *   order, once;
 * - that record holds each fact a delivered message carried: caller, start, end, duration, status,
 *   transcript, recording, cost, latency, analysis — whichever way the call ended.
 */
import { describe, expect, it } from '@jest/globals';
import type { CallEvent } from '@voice/contracts';
import { attributeToAgent, mapPlatformWebhook, type WebhookPlatform } from '@voice/voice-platforms';
import fc from 'fast-check';
import { foldConversation, type ConversationState } from './conversation.evolve.js';

const AGENT = 'agt_facts';
const CALLERS = ['+19175550123', '+14155550188'] as const;
const TEXTS = ['Hello, how can I help?', 'I need to move my appointment.', 'Done, see you Tuesday.', 'Thanks, bye.'] as const;
const DAY_MS = 86_400_000;
const BASE_MS = Date.parse('2026-03-02T00:00:00Z');

interface Message {
  /** What kind of message, for the oracle. */
  kind: string;
  body: Record<string, unknown>;
}

interface Turn {
  agent: boolean;
  text: string;
  /** From the call's start. */
  offsetMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** A completed call's outcome when the analysis gives no label (platforms.md's end reasons). */
const OUTCOME_OF_REASON: Record<string, string> = {
  call_transfer: 'transferred', voicemail_reached: 'voicemail', 'assistant-forwarded-call': 'transferred', voicemail: 'voicemail',
};

function eventsOf(platform: WebhookPlatform, message: Message): CallEvent[] {
  const mapping = mapPlatformWebhook(platform, structuredClone(message.body));
  return mapping.result === 'mapped' ? attributeToAgent(mapping.events, AGENT) : [];
}

function record(platform: WebhookPlatform, messages: readonly Message[]): ConversationState | undefined {
  return foldConversation(messages.flatMap((m) => eventsOf(platform, m)));
}

/** The status the terminal event a message maps to gives the call, if it maps to one. */
function statusOf(platform: WebhookPlatform, message: Message): ConversationState['status'] | undefined {
  const terminal = eventsOf(platform, message).find((e) => e.type === 'call.ended' || e.type === 'call.failed' || e.type === 'call.abandoned');
  return terminal === undefined ? undefined : terminal.type === 'call.ended' ? 'completed' : terminal.type === 'call.failed' ? 'failed' : 'abandoned';
}

// Turns start at distinct instants: segments are told apart by speaker, start and words, so the same words by the
// same speaker at the same millisecond are one segment delivered twice, not two turns.
const turns = (maxOffsetMs: number) =>
  fc.uniqueArray(fc.record({ agent: fc.boolean(), text: fc.constantFrom(...TEXTS), offsetMs: fc.integer({ min: 0, max: maxOffsetMs }) }), { maxLength: 4, selector: (t) => t.offsetMs })
    .map((list) => [...list].sort((a, b) => a.offsetMs - b.offsetMs));

/** What a platform's analysis says; every field optional, as platforms send them. */
const analysis = fc.record({
  summary: fc.option(fc.constantFrom('Moved the appointment.', 'Caller asked for hours.'), { nil: undefined }),
  // `unknown` is platform_a's fourth value: no sentiment.
  sentiment: fc.option(fc.constantFrom('positive', 'neutral', 'negative', 'unknown'), { nil: undefined }),
  outcome: fc.option(fc.constantFrom('appointment_moved', 'info_given'), { nil: undefined }),
  topics: fc.option(fc.constantFrom(['booking'], ['hours', 'billing']), { nil: undefined }),
  // The platform's verdict (call_successful, successEvaluation): the outcome when neither a label nor the end reason gives one.
  successful: fc.option(fc.boolean(), { nil: undefined }),
});
type Analysis = typeof analysis extends fc.Arbitrary<infer T> ? T : never;

const sentimentFact = (a: Analysis): ConversationState['sentiment'] => (a.sentiment === undefined || a.sentiment === 'unknown' ? null : a.sentiment);
/** A completed call's outcome: the analysis' label, else what the end reason says, else the verdict. */
const outcomeFact = (reason: string, a: Analysis | undefined) =>
  a?.outcome ?? OUTCOME_OF_REASON[reason] ?? (a?.successful === undefined ? null : a.successful ? 'resolved' : 'unresolved');

// ---- platform_a: call_started, transcript_updated, call_ended, call_analyzed (and an event type not handled) ----

/** Every latency component platforms.md names. */
const PLATFORM_A_LATENCY = { e2e: { p50: 800, p90: 1100, p99: 1400 }, llm: { p50: 400, p90: 600, p99: 900 }, tts: { p50: 150, p90: 200, p99: 260 }, asr: { p50: 90, p90: 120, p99: 180 } };

const A_REASONS = [
  'user_hangup', 'agent_hangup', 'call_transfer', 'voicemail_reached', 'inactivity', 'max_duration_reached', 'concurrency_limit_reached',
  'dial_busy', 'dial_failed', 'dial_no_answer', 'error_llm_websocket_open', 'error_asr', 'error_no_audio_received', 'error_unknown', 'brand_new_reason',
] as const;

const platformACall = fc.record({
  callId: fc.constantFrom('call_facts_a1', 'call_facts_a2'),
  caller: fc.option(fc.constantFrom(...CALLERS), { nil: undefined }),
  startMs: fc.integer({ min: BASE_MS, max: BASE_MS + DAY_MS }),
  // 0 often: a call that ends at the instant it starts puts every event at one instant.
  durationMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 600_000 })),
  // What of the end the call object says (platforms.md: fields present so far).
  endGiven: fc.constantFrom('end_timestamp', 'duration_ms', 'neither'),
  reason: fc.constantFrom(...A_REASONS),
  // Word times may run past the end (clocks apart): transcripts then sort after the end.
  turns: turns(700_000),
  recorded: fc.boolean(),
  costCents: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
  latency: fc.boolean(),
  analysis,
});
type PlatformACall = typeof platformACall extends fc.Arbitrary<infer T> ? T : never;

function platformAMessages(call: PlatformACall): Message[] {
  const base = {
    call_id: call.callId, agent_id: 'agent_facts', direction: 'inbound', to_number: '+14155550199', start_timestamp: call.startMs,
    ...(call.caller !== undefined ? { from_number: call.caller } : {}),
  };
  const transcriptObject = (upTo: number) =>
    call.turns.slice(0, upTo).map((t) => ({ role: t.agent ? 'agent' : 'user', content: t.text, words: [{ word: t.text, start: t.offsetMs / 1000, end: t.offsetMs / 1000 + 0.5 }] }));
  const ended = {
    ...base,
    call_status: call.reason.startsWith('dial_') ? 'not_connected' : call.reason.startsWith('error_') ? 'error' : 'ended',
    disconnection_reason: call.reason,
    ...(call.endGiven === 'end_timestamp' ? { end_timestamp: call.startMs + call.durationMs, duration_ms: call.durationMs } : {}),
    ...(call.endGiven === 'duration_ms' ? { duration_ms: call.durationMs } : {}),
    transcript_object: transcriptObject(call.turns.length),
    ...(call.recorded ? { recording_url: `https://recordings.platform-a.example/${call.callId}.wav` } : {}),
    ...(call.costCents !== undefined ? { call_cost: { combined_cost: call.costCents, product_costs: [{ product: 'llm', cost: call.costCents }] } } : {}),
    ...(call.latency ? { latency: PLATFORM_A_LATENCY } : {}),
  };
  const a = call.analysis;
  const callAnalysis = {
    ...(a.summary !== undefined ? { call_summary: a.summary } : {}),
    ...(a.sentiment !== undefined ? { user_sentiment: a.sentiment.charAt(0).toUpperCase() + a.sentiment.slice(1) } : {}),
    ...(a.successful !== undefined ? { call_successful: a.successful } : {}),
    custom_analysis_data: { ...(a.outcome !== undefined ? { outcome: a.outcome } : {}), ...(a.topics !== undefined ? { topics: a.topics } : {}) },
  };
  return [
    { kind: 'call_started', body: { event: 'call_started', call: { ...base, call_status: 'ongoing' } } },
    ...call.turns.map((_, i) => ({ kind: 'transcript_updated', body: { event: 'transcript_updated', call: { ...base, call_status: 'ongoing', transcript_object: transcriptObject(i + 1) } } })),
    { kind: 'call_ended', body: { event: 'call_ended', call: ended } },
    { kind: 'call_analyzed', body: { event: 'call_analyzed', call: { ...ended, call_analysis: callAnalysis } } },
    { kind: 'ignored', body: { event: 'call_registered', call: { ...base, call_status: 'registered' } } },
  ];
}

/** The facts the delivered messages carry, as the record must show them. */
function platformAFacts(call: PlatformACall, delivered: readonly Message[]): Partial<ConversationState> {
  const has = (kind: string) => delivered.some((m) => m.kind === kind);
  const end = delivered.find((m) => m.kind === 'call_ended' || m.kind === 'call_analyzed');
  const analyzed = has('call_analyzed');
  const facts: Partial<ConversationState> = {
    caller_number: (has('call_started') || end) && call.caller !== undefined ? call.caller : null,
    start_time: has('call_started') || end ? iso(call.startMs) : null,
    platform_call_id: has('call_started') || end ? call.callId : null,
  };
  if (!end) return { ...facts, status: 'in_progress', end_time: null, duration: 0, cost: null, latency: [], recording_url: null, summary: null };
  const status = statusOf('platform_a', end)!;
  const lastWordMs = call.turns.length > 0 ? Math.max(...call.turns.map((t) => t.offsetMs + 500)) : 0;
  const endMs = call.endGiven === 'neither' ? call.startMs + lastWordMs : call.startMs + call.durationMs;
  const completed = status === 'completed';
  const a = call.analysis;
  return {
    ...facts,
    status,
    end_time: iso(endMs),
    duration: status === 'abandoned' || call.endGiven === 'neither' ? 0 : Math.round(call.durationMs / 1000),
    end_reason: call.reason,
    cost: call.costCents !== undefined ? { amount: call.costCents / 100, currency: 'USD', breakdown: [{ component: 'llm', amount: call.costCents / 100 }] } : null,
    latency: call.latency
      ? Object.entries(PLATFORM_A_LATENCY).map(([component, f]) => ({ component, p50_ms: f.p50, p90_ms: f.p90, p99_ms: f.p99 }))
      : [],
    recording_url: call.recorded ? `https://recordings.platform-a.example/${call.callId}.wav` : null,
    summary: analyzed && a.summary !== undefined ? a.summary : null,
    sentiment: analyzed ? sentimentFact(a) : null,
    topics: analyzed && a.topics !== undefined ? [...a.topics] : [],
    outcome: completed ? outcomeFact(call.reason, analyzed ? a : undefined) : null,
  };
}

// ---- platform_b: status-update (queued, ringing, in-progress, forwarding, ended), transcript (partial, final), end-of-call-report, and a type not handled ----

/** The report's cost parts and latency figures, every one platforms.md names. */
const B_COST_PARTS = { stt: 0.0012, tts: 0.0034, transport: 0.0005 };
const B_METRICS = { turnLatencyAverage: 950, modelLatencyAverage: 480, voiceLatencyAverage: 210, transcriberLatencyAverage: 140 };

const B_REASONS = [
  'customer-ended-call', 'assistant-ended-call', 'assistant-said-end-call-phrase', 'assistant-forwarded-call', 'silence-timed-out',
  'exceeded-max-duration', 'voicemail', 'customer-busy', 'customer-did-not-answer', 'manually-canceled', 'pipeline-error-openai-llm-failed',
  'phone-call-provider-closed-websocket', 'twilio-failed-to-connect-call', 'brand-new-reason',
] as const;

const platformBCall = fc.record({
  callId: fc.constantFrom('5b0e8c2a-3f1d-4e6a-9b7c-2d4e6f8a0b1c', 'c0ffee00-3f1d-4e6a-9b7c-2d4e6f8a0b1c'),
  caller: fc.option(fc.constantFrom(...CALLERS), { nil: undefined }),
  startMs: fc.integer({ min: BASE_MS, max: BASE_MS + DAY_MS }),
  durationMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 600_000 })),
  reason: fc.constantFrom(...B_REASONS),
  turns: turns(600_000),
  // Message timestamps are the platform's clock: the in-progress status a little before or after the start, the
  // live transcripts anywhere (before the start, after the report), the report at the start (as seen), at the
  // end, later, or without a timestamp (placed at endedAt).
  inProgressSkewMs: fc.oneof(fc.constant(0), fc.integer({ min: -1500, max: 1500 })),
  transcriptSkewMs: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: -700_000, max: 700_000 })), { minLength: 4, maxLength: 4 }),
  reportAt: fc.constantFrom('start', 'end', 'later', 'none'),
  recorded: fc.boolean(),
  cost: fc.option(fc.integer({ min: 0, max: 5000 }).map((c) => c / 10_000), { nil: undefined }),
  metrics: fc.boolean(),
  analysis,
});
type PlatformBCall = typeof platformBCall extends fc.Arbitrary<infer T> ? T : never;

function platformBMessages(call: PlatformBCall): Message[] {
  const endMs = call.startMs + call.durationMs;
  const callObject = {
    id: call.callId, assistantId: 'assistant-facts', type: 'inboundPhoneCall', phoneNumber: { number: '+14155550199' },
    customer: call.caller !== undefined ? { number: call.caller } : {},
  };
  const message = (kind: string, timestamp: number | undefined, fields: object): Message => ({
    kind,
    body: { message: { ...fields, ...(timestamp !== undefined ? { timestamp } : {}), call: callObject } },
  });
  const reportTimestamp = { start: call.startMs, end: endMs, later: endMs + 2500, none: undefined }[call.reportAt];
  const a = call.analysis;
  return [
    message('ignored', call.startMs - 2000, { type: 'status-update', status: 'queued' }),
    message('ignored', call.startMs - 1000, { type: 'status-update', status: 'ringing' }),
    message('in-progress', call.startMs + call.inProgressSkewMs, { type: 'status-update', status: 'in-progress' }),
    ...call.turns.flatMap((t, i) => {
      const at = call.startMs + t.offsetMs + call.transcriptSkewMs[i];
      const fields = { type: 'transcript', role: t.agent ? 'assistant' : 'user', transcript: t.text };
      return [message('ignored', at - 300, { ...fields, transcriptType: 'partial' }), message('transcript', at, { ...fields, transcriptType: 'final' })];
    }),
    message('ignored', call.startMs, { type: 'speech-update', status: 'started', role: 'assistant' }),
    ...(OUTCOME_OF_REASON[call.reason] === 'transferred' ? [message('ignored', endMs, { type: 'status-update', status: 'forwarding' })] : []),
    message('ended', endMs, { type: 'status-update', status: 'ended', endedReason: call.reason }),
    message('report', reportTimestamp, {
      type: 'end-of-call-report',
      endedReason: call.reason,
      startedAt: iso(call.startMs),
      endedAt: iso(endMs),
      ...(call.cost !== undefined
        ? { cost: call.cost, costBreakdown: { stt: B_COST_PARTS.stt, llm: call.cost, tts: B_COST_PARTS.tts, transport: B_COST_PARTS.transport, total: call.cost } }
        : {}),
      artifact: {
        messages: call.turns.map((t) => ({
          role: t.agent ? 'bot' : 'user', message: t.text, time: call.startMs + t.offsetMs, endTime: call.startMs + t.offsetMs + 500,
          secondsFromStart: t.offsetMs / 1000, duration: 500,
        })),
        transcript: call.turns.map((t) => `${t.agent ? 'AI' : 'User'}: ${t.text}`).join('\n'),
        ...(call.recorded ? { recordingUrl: `https://storage.platform-b.example/${call.callId}.wav` } : {}),
      },
      analysis: {
        ...(a.summary !== undefined ? { summary: a.summary } : {}),
        structuredData: { ...(a.sentiment !== undefined ? { sentiment: a.sentiment } : {}), ...(a.outcome !== undefined ? { outcome: a.outcome } : {}), ...(a.topics !== undefined ? { topics: a.topics } : {}) },
        ...(a.successful !== undefined ? { successEvaluation: String(a.successful) } : {}),
      },
      ...(call.metrics ? { performanceMetrics: B_METRICS } : {}),
    }),
  ];
}

function platformBFacts(call: PlatformBCall, delivered: readonly Message[]): Partial<ConversationState> {
  const report = delivered.find((m) => m.kind === 'report');
  const inProgress = delivered.some((m) => m.kind === 'in-progress');
  // An `ended` status whose class depends on whether the assistant spoke is left to the report.
  const ended = delivered.find((m) => m.kind === 'ended' && statusOf('platform_b', m) !== undefined);
  const knowsCall = inProgress || ended !== undefined || report !== undefined;
  const facts: Partial<ConversationState> = {
    caller_number: knowsCall && call.caller !== undefined ? call.caller : null,
    start_time: report ? iso(call.startMs) : inProgress ? iso(call.startMs + call.inProgressSkewMs) : null,
    platform_call_id: knowsCall ? call.callId : null,
  };
  const end = report ?? ended;
  if (!end) return { ...facts, status: 'in_progress', end_time: null, duration: 0, cost: null, latency: [], recording_url: null, summary: null };
  const status = statusOf('platform_b', end)!;
  const a = call.analysis;
  return {
    ...facts,
    status,
    end_time: iso(call.startMs + call.durationMs),
    duration: report && status !== 'abandoned' ? Math.round(call.durationMs / 1000) : 0,
    end_reason: call.reason,
    cost: report && call.cost !== undefined
      ? {
        amount: call.cost, currency: 'USD',
        breakdown: [
          { component: 'stt', amount: B_COST_PARTS.stt }, { component: 'llm', amount: call.cost },
          { component: 'tts', amount: B_COST_PARTS.tts }, { component: 'transport', amount: B_COST_PARTS.transport },
        ],
      }
      : null,
    latency: report && call.metrics
      ? [{ component: 'turn', average_ms: 950 }, { component: 'model', average_ms: 480 }, { component: 'voice', average_ms: 210 }, { component: 'transcriber', average_ms: 140 }]
      : [],
    recording_url: report && call.recorded ? `https://storage.platform-b.example/${call.callId}.wav` : null,
    outcome: status === 'completed' ? outcomeFact(call.reason, report ? a : undefined) : null,
    summary: report && a.summary !== undefined ? a.summary : null,
    sentiment: report ? sentimentFact(a) : null,
    topics: report && a.topics !== undefined ? [...a.topics] : [],
  };
}

/** The transcript's lines a history must show: the final transcript's when delivered, else some live one's. */
function expectTranscript(state: ConversationState, turnsSaid: readonly Turn[], finalDelivered: boolean, liveDelivered: boolean): void {
  const texts = state.transcript.map((s) => s.text).sort();
  if (finalDelivered) expect(texts).toEqual(turnsSaid.map((t) => t.text).sort());
  else if (liveDelivered) expect(texts.length).toBeGreaterThan(0);
  else expect(texts).toEqual([]);
}

/**
 * A history of a call: some of its messages (possibly without its start), in the order the platform sent
 * them; then those delivered in any order, some of them several times.
 */
function histories<C>(calls: fc.Arbitrary<C>, messagesOf: (call: C) => Message[]) {
  return calls.chain((call) => {
    const all = messagesOf(call);
    return fc.subarray(all.map((_, i) => i)).chain((kept) => {
      const inOrder = kept.map((i) => all[i]);
      return fc.record({
        call: fc.constant(call),
        inOrder: fc.constant(inOrder),
        delivered: inOrder.length === 0
          ? fc.constant([] as Message[])
          : fc.array(fc.nat({ max: inOrder.length - 1 }), { maxLength: 8 }).chain((repeats) => {
            const withRepeats = [...inOrder, ...repeats.map((i) => inOrder[i])];
            return fc.shuffledSubarray(withRepeats, { minLength: withRepeats.length, maxLength: withRepeats.length });
          }),
      });
    });
  });
}

const RUNS = { numRuns: 1000 };

describe('call facts survive any delivery: platform_a', () => {
  const cases = histories(platformACall, platformAMessages);

  it('any permutation with duplicates folds, field by field, to the record of the history delivered in order once', () => {
    fc.assert(fc.property(cases, ({ inOrder, delivered }) => {
      expect(record('platform_a', delivered)).toEqual(record('platform_a', inOrder));
    }), RUNS);
  });

  it('the record holds every fact the delivered messages carry', () => {
    fc.assert(fc.property(cases, ({ call, delivered }) => {
      const state = record('platform_a', delivered);
      if (!delivered.some((m) => m.kind !== 'ignored')) return expect(state).toBeUndefined();
      expect(state).toMatchObject(platformAFacts(call, delivered));
      const final = delivered.some((m) => m.kind === 'call_ended' || m.kind === 'call_analyzed');
      expectTranscript(state!, call.turns, final && call.turns.length > 0, delivered.some((m) => m.kind === 'transcript_updated'));
    }), RUNS);
  });
});

describe('call facts survive any delivery: platform_b', () => {
  const cases = histories(platformBCall, platformBMessages);

  it('any permutation with duplicates folds, field by field, to the record of the history delivered in order once', () => {
    fc.assert(fc.property(cases, ({ inOrder, delivered }) => {
      expect(record('platform_b', delivered)).toEqual(record('platform_b', inOrder));
    }), RUNS);
  });

  it('the record holds every fact the delivered messages carry', () => {
    fc.assert(fc.property(cases, ({ call, delivered }) => {
      const state = record('platform_b', delivered);
      const recorded = delivered.filter((m) => eventsOf('platform_b', m).length > 0);
      if (recorded.length === 0) return expect(state).toBeUndefined();
      expect(state).toMatchObject(platformBFacts(call, delivered));
      const report = delivered.some((m) => m.kind === 'report');
      expectTranscript(state!, call.turns, report && call.turns.length > 0, delivered.some((m) => m.kind === 'transcript'));
    }), RUNS);
  });
});

describe('the two calls that lost their facts', () => {
  it('platform_b: in-progress, ended (customer-ended-call), then a report stamped at the call\'s start: completed, with its caller and start', () => {
    const call: PlatformBCall = {
      callId: '5b0e8c2a-3f1d-4e6a-9b7c-2d4e6f8a0b1c', caller: '+19175550123', startMs: BASE_MS, durationMs: 42_000, reason: 'customer-ended-call',
      turns: [{ agent: true, text: TEXTS[0], offsetMs: 500 }, { agent: false, text: TEXTS[1], offsetMs: 3000 }],
      inProgressSkewMs: 0, transcriptSkewMs: [0, 0, 0, 0], reportAt: 'start', recorded: true, cost: 0.05, metrics: true,
      analysis: { summary: 'Moved the appointment.', sentiment: 'positive', outcome: undefined, topics: undefined, successful: undefined },
    };
    const messages = platformBMessages(call);
    const delivered = ['in-progress', 'ended', 'report'].map((kind) => messages.find((m) => m.kind === kind)!);
    const state = record('platform_b', delivered)!;
    expect(state).toMatchObject({
      status: 'completed', caller_number: '+19175550123', start_time: iso(BASE_MS), end_time: iso(BASE_MS + 42_000), duration: 42,
      summary: 'Moved the appointment.', end_reason: 'customer-ended-call',
    });
    // In any order, the same record.
    expect(record('platform_b', [...delivered].reverse())).toEqual(state);
  });

  it('platform_a: only call_ended, error_asr, its call_started never delivered: failed, with its caller and start', () => {
    const call: PlatformACall = {
      callId: 'call_facts_a1', caller: '+19175550123', startMs: BASE_MS, durationMs: 30_000, endGiven: 'end_timestamp', reason: 'error_asr',
      turns: [], recorded: false, costCents: undefined, latency: false, analysis: { summary: undefined, sentiment: undefined, outcome: undefined, topics: undefined, successful: undefined },
    };
    const ended = platformAMessages(call).find((m) => m.kind === 'call_ended')!;
    const state = record('platform_a', [ended])!;
    expect(state).toMatchObject({
      status: 'failed', failure_reason: 'error_asr', caller_number: '+19175550123', start_time: iso(BASE_MS), end_time: iso(BASE_MS + 30_000), duration: 30,
    });
  });
});
