import type { CallOutcome } from '../calls/call-options.js';
import { transcriptText, type CallTimeline, type TimedTurn } from '../calls/call-timeline.js';
import type { OutgoingEvent } from '../calls/webhook-delivery.js';

/** Reasons for which platform_b never connected the call: no `in-progress` status, no transcript. */
export const PLATFORM_B_DIAL_FAILURES: readonly string[] = ['customer-busy', 'customer-did-not-answer', 'twilio-failed-to-connect-call'];

const DEFAULT_REASON: Record<CallOutcome, string> = {
  completed: 'assistant-ended-call',
  busy: 'customer-busy',
  'no-answer': 'customer-did-not-answer',
  'caller-hangup': 'customer-ended-call',
  failed: 'twilio-failed-to-connect-call',
};

export const PLATFORM_B_UNKNOWN_EVENT_TYPE = 'speech-update';
/** Roughly 9 US cents a minute. */
const USD_PER_SECOND = 0.0015;

export function platformBReason(outcome: CallOutcome, reason: string | undefined): string {
  return reason ?? DEFAULT_REASON[outcome];
}

export interface PlatformBCallContext {
  callId: string;
  assistantId: string;
  toNumber: string;
  reason: string;
  /** Where the simulator serves the call's recording; absent when it was not recorded. */
  recordingUrl?: string;
}

/**
 * The messages of one call, in the order platform_b sends them: `ringing`, `in-progress` (connected calls
 * only), a partial then a final transcript per turn, the `ended` status, the end-of-call report.
 */
export function platformBCallEvents(timeline: CallTimeline, context: PlatformBCallContext): OutgoingEvent[] {
  const call = callObject(timeline, context);
  const message = (type: string, timestamp: number, extra: Record<string, unknown>): OutgoingEvent => ({
    type,
    body: { message: { type, timestamp, call, ...extra } },
    atMs: timestamp - timeline.startedAt,
  });
  const events: OutgoingEvent[] = [message('status-update', timeline.startedAt, { status: 'ringing' })];
  if (timeline.connected) {
    events.push(message('status-update', timeline.startedAt, { status: 'in-progress' }));
    for (const turn of timeline.turns) {
      const role = turn.role === 'agent' ? 'assistant' : 'user';
      const words = turn.words.map((word) => word.word);
      const partial = words.slice(0, Math.ceil(words.length / 2)).join(' ');
      const halfway = turn.words[Math.ceil(words.length / 2) - 1].endMs;
      events.push(message('transcript', timeline.startedAt + halfway, { role, transcriptType: 'partial', transcript: partial }));
      events.push(message('transcript', timeline.startedAt + turn.endMs, { role, transcriptType: 'final', transcript: turn.text }));
    }
  }
  events.push(message('status-update', timeline.endedAt, { status: 'ended', endedReason: context.reason }));
  events.push(message('end-of-call-report', timeline.endedAt + timeline.analysisDelayMs, endOfCallReport(timeline, context)));
  return events;
}

/** The end of the call, for `reorder: 'end-before-start'`: the `ended` status and the report. */
export function isPlatformBEndEvent(event: OutgoingEvent): boolean {
  const message = (event.body as { message: { type: string; status?: string } }).message;
  return message.type === 'end-of-call-report' || (message.type === 'status-update' && message.status === 'ended');
}

/** A message type platforms.md does not list: receivers must accept and ignore it. */
export function platformBUnknownEvent(timeline: CallTimeline, context: PlatformBCallContext): OutgoingEvent {
  const message = { type: PLATFORM_B_UNKNOWN_EVENT_TYPE, timestamp: timeline.startedAt, call: callObject(timeline, context), status: 'started', role: 'assistant' };
  return { type: PLATFORM_B_UNKNOWN_EVENT_TYPE, body: { message } };
}

function callObject(timeline: CallTimeline, context: PlatformBCallContext) {
  return {
    id: context.callId,
    assistantId: context.assistantId,
    type: 'inboundPhoneCall',
    customer: timeline.fromNumber === null ? {} : { number: timeline.fromNumber },
    phoneNumber: { number: context.toNumber },
  };
}

function endOfCallReport(timeline: CallTimeline, context: PlatformBCallContext) {
  const { summary, sentiment, outcome, topics, successful } = timeline.analysis;
  const assistantSpoke = timeline.turns.some((turn) => turn.role === 'agent');
  return {
    endedReason: context.reason,
    startedAt: new Date(timeline.startedAt).toISOString(),
    endedAt: new Date(timeline.endedAt).toISOString(),
    ...cost(timeline.durationMs),
    artifact: {
      messages: timeline.turns.map((turn) => artifactMessage(turn, timeline.startedAt)),
      transcript: transcriptText(timeline.turns, 'AI', 'User'),
      ...(context.recordingUrl !== undefined && timeline.connected ? { recordingUrl: context.recordingUrl } : {}),
    },
    analysis: { summary, structuredData: { sentiment, outcome, topics }, successEvaluation: String(successful) },
    performanceMetrics: assistantSpoke
      ? { turnLatencyAverage: 950, modelLatencyAverage: 480, voiceLatencyAverage: 210, transcriberLatencyAverage: 140 }
      : { turnLatencyAverage: 0, modelLatencyAverage: 0, voiceLatencyAverage: 0, transcriberLatencyAverage: 0 },
  };
}

function artifactMessage(turn: TimedTurn, startedAt: number) {
  return {
    role: turn.role === 'agent' ? 'bot' : 'user',
    message: turn.text,
    time: startedAt + turn.startMs,
    endTime: startedAt + turn.endMs,
    secondsFromStart: turn.startMs / 1000,
    duration: turn.endMs - turn.startMs,
  };
}

function cost(durationMs: number) {
  const total = round4((durationMs / 1000) * USD_PER_SECOND);
  const stt = round4(total * 0.15);
  const llm = round4(total * 0.3);
  const tts = round4(total * 0.35);
  // Transport takes the rounding remainder, so the breakdown adds up to the total (to floating-point rounding).
  const transport = round4(total - stt - llm - tts);
  return { cost: total, costBreakdown: { stt, llm, tts, transport, total } };
}

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
