import type { CallOutcome } from '../calls/call-options.js';
import type { CallTimeline, TimedTurn } from '../calls/call-timeline.js';
import type { OutgoingEvent } from '../calls/webhook-delivery.js';
import type { PlatformAAgent } from './agent-fields.js';

/** Reasons for which platform_a never connected the call, so it sends no `call_started`. */
export const PLATFORM_A_DIAL_FAILURES: readonly string[] = ['dial_busy', 'dial_no_answer', 'dial_failed'];

const DEFAULT_REASON: Record<CallOutcome, string> = {
  completed: 'agent_hangup',
  busy: 'dial_busy',
  'no-answer': 'dial_no_answer',
  'caller-hangup': 'user_hangup',
  failed: 'dial_failed',
};

export const PLATFORM_A_UNKNOWN_EVENT_TYPE = 'call_recording_ready';
const SENTIMENT = { positive: 'Positive', neutral: 'Neutral', negative: 'Negative', unknown: 'Unknown' } as const;
/** Roughly 7 US cents a minute, split over the products platform_a bills. */
const CENTS_PER_SECOND = 0.1167;

export function platformAReason(outcome: CallOutcome, reason: string | undefined): string {
  return reason ?? DEFAULT_REASON[outcome];
}

export interface PlatformACallContext {
  callId: string;
  agent: PlatformAAgent;
  toNumber: string;
  reason: string;
  /** Where the simulator serves the call's recording; absent when it was not recorded. */
  recordingUrl?: string;
}

/**
 * The events of one call, in the order platform_a sends them: `call_started` (connected calls only), one
 * `transcript_updated` per turn, `call_ended` (everything but the analysis), `call_analyzed`.
 */
export function platformACallEvents(timeline: CallTimeline, context: PlatformACallContext): OutgoingEvent[] {
  const base: Record<string, unknown> = {
    call_id: context.callId,
    agent_id: context.agent.agent_id,
    direction: 'inbound',
    ...(timeline.fromNumber === null ? {} : { from_number: timeline.fromNumber }),
    to_number: context.toNumber,
    start_timestamp: timeline.startedAt,
    metadata: { ...context.agent.metadata },
  };
  const events: OutgoingEvent[] = [];
  if (timeline.connected) {
    events.push({ type: 'call_started', body: { event: 'call_started', call: { ...base, call_status: 'ongoing' } }, atMs: 0 });
    for (let spoken = 1; spoken <= timeline.turns.length; spoken += 1) {
      const call = { ...base, call_status: 'ongoing', transcript_object: transcriptObject(timeline.turns.slice(0, spoken)) };
      events.push({ type: 'transcript_updated', body: { event: 'transcript_updated', call }, atMs: timeline.turns[spoken - 1].endMs });
    }
  }
  const ended = {
    ...base,
    call_status: !timeline.connected ? 'not_connected' : context.reason.startsWith('error_') ? 'error' : 'ended',
    end_timestamp: timeline.endedAt,
    duration_ms: timeline.durationMs,
    disconnection_reason: context.reason,
    transcript_object: transcriptObject(timeline.turns),
    ...(context.recordingUrl !== undefined && timeline.connected ? { recording_url: context.recordingUrl } : {}),
    call_cost: callCost(timeline.durationMs),
    latency: timeline.turns.some((turn) => turn.role === 'agent') ? LATENCY : {},
  };
  events.push({ type: 'call_ended', body: { event: 'call_ended', call: ended }, atMs: timeline.durationMs });
  const { summary, sentiment, successful, outcome, topics } = timeline.analysis;
  const callAnalysis = { call_summary: summary, user_sentiment: SENTIMENT[sentiment], call_successful: successful, custom_analysis_data: { outcome, topics } };
  events.push({ type: 'call_analyzed', body: { event: 'call_analyzed', call: { ...ended, call_analysis: callAnalysis } }, atMs: timeline.durationMs + timeline.analysisDelayMs });
  return events;
}

/** An event type platforms.md does not list: receivers must accept and ignore it. */
export function platformAUnknownEvent(context: PlatformACallContext): OutgoingEvent {
  const call = { call_id: context.callId, agent_id: context.agent.agent_id, direction: 'inbound', to_number: context.toNumber };
  return { type: PLATFORM_A_UNKNOWN_EVENT_TYPE, body: { event: PLATFORM_A_UNKNOWN_EVENT_TYPE, call } };
}

function transcriptObject(turns: TimedTurn[]) {
  return turns.map((turn) => ({
    role: turn.role,
    content: turn.text,
    words: turn.words.map((word) => ({ word: word.word, start: seconds(word.startMs), end: seconds(word.endMs) })),
  }));
}

function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

function callCost(durationMs: number) {
  const total = round2((durationMs / 1000) * CENTS_PER_SECOND);
  const voice = round2(total * 0.5);
  const llm = round2(total * 0.3);
  // The last product takes the rounding remainder, so the products add up to the combined cost (to floating-point rounding).
  const telephony = round2(total - voice - llm);
  return {
    combined_cost: total,
    product_costs: [
      { product: 'voice_engine', cost: voice },
      { product: 'llm', cost: llm },
      { product: 'telephony', cost: telephony },
    ],
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

const LATENCY = {
  e2e: { p50: 820, p90: 1150, p99: 1480 },
  llm: { p50: 430, p90: 610, p99: 890 },
  tts: { p50: 180, p90: 240, p99: 320 },
  asr: { p50: 120, p90: 170, p99: 230 },
};
