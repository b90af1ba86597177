/**
 * platform_a webhooks (the "call object" family, platforms.md): `{ event, call }`, no event id, no event
 * time. Times come from the call object, so a retried delivery maps to identical events:
 * - call_started → start_timestamp;
 * - transcript_updated → start_timestamp + the end of the last word said so far (start_timestamp alone
 *   when no word has timings);
 * - call_ended → end_timestamp, else start_timestamp + duration_ms, else start_timestamp + the end of the
 *   last word, else start_timestamp; call_analyzed → the same + 1 ms (the analysis comes after the end,
 *   so it refines the call_ended event whatever order they arrive in).
 * Without start_timestamp a call_started or transcript_updated cannot be placed in time: ignored.
 */
import type { LatencyFigures, TranscriptSegment } from '@voice/contracts';
import { classifyEnd } from '../webhooks/end-reasons.js';
import { PLATFORM_A_END_REASONS } from './end-reasons.js';
import {
  costOf, latencyOf, outcomeOf, secondsOf, segmentsOf, terminalEvent, transcriptEvents, type CallEnd,
} from '../webhooks/event-builders.js';
import { compact, ignored, mapped, type WebhookSubject } from '../webhooks/results.js';
import type { UnattributedCallEvent, WebhookMapping } from '../webhooks/types.js';
import { isPlainObject } from '@voice/contracts';
import {
  boundedText, clampMs, conversationIdFor, e164, eventIdPrefix, httpUrl, isoFromMs, malformed, nonNegative,
  platformCallIdField, quote, sentimentOf, softObject, strictId, strictObject, strictOptArray, strictOptNumber,
  strictOptString, strictOptUnixMs, topicList, verdict, type Json,
} from '../webhooks/values.js';

/** The first part of this platform's event ids. */
const EVENT_ID_TAG = 'pa';

export const PLATFORM_A_EVENT_TYPES = ['call_started', 'transcript_updated', 'call_ended', 'call_analyzed'] as const;

export function mapPlatformA(body: unknown): WebhookMapping {
  if (!isPlainObject(body)) return malformed('body must be a JSON object');
  const eventType = body.event;
  if (eventType === undefined || eventType === null) return malformed('event is missing');
  if (typeof eventType !== 'string') return malformed('event must be a string');
  const loose = isPlainObject(body.call) ? body.call : {};
  const subject: WebhookSubject = {
    eventType,
    platformAgentId: typeof loose.agent_id === 'string' ? loose.agent_id : null,
    platformCallId: typeof loose.call_id === 'string' ? loose.call_id : null,
  };
  if (!(PLATFORM_A_EVENT_TYPES as readonly string[]).includes(eventType)) {
    return ignored(`event type ${quote(eventType)} is not handled`, subject);
  }
  const call = strictObject(body, 'call', 'call');
  const platformCallId = strictId(call, 'call_id', 'call.call_id');
  const platformAgentId = strictId(call, 'agent_id', 'call.agent_id');
  const ctx: CallContext = {
    call,
    platformCallId,
    conversationId: conversationIdFor('platform_a', platformCallId),
    prefix: eventIdPrefix('platform_a', EVENT_ID_TAG, platformCallId),
  };
  const result =
    eventType === 'call_started' ? callStarted(ctx)
    : eventType === 'transcript_updated' ? transcriptUpdated(ctx)
    : callEnd(ctx, eventType === 'call_analyzed');
  if (typeof result === 'string') return ignored(result, subject);
  return mapped({ eventType, platformAgentId, platformCallId }, ctx.conversationId, result);
}

interface CallContext {
  call: Json;
  platformCallId: string;
  conversationId: string;
  prefix: string;
}

/** Events, or the reason the webhook is ignored. */
type Outcome = UnattributedCallEvent[] | string;

function callStarted({ call, platformCallId, conversationId, prefix }: CallContext): Outcome {
  const start = strictOptUnixMs(call, 'start_timestamp', 'call.start_timestamp');
  if (start === undefined) return 'call.start_timestamp is missing: the start of the call is unknown';
  const startTime = isoFromMs(start);
  return [{
    id: `${prefix}:call.started`,
    type: 'call.started',
    conversation_id: conversationId,
    occurred_at: startTime,
    data: compact({ caller_number: e164(call.from_number), start_time: startTime, ...platformCallIdField(platformCallId) }),
  }];
}

function transcriptUpdated({ call, conversationId, prefix }: CallContext): Outcome {
  const transcript = readTranscript(call);
  if (transcript.segments.length === 0) return 'the transcript is empty';
  const start = strictOptUnixMs(call, 'start_timestamp', 'call.start_timestamp');
  if (start === undefined) return 'call.start_timestamp is missing: the transcript cannot be placed in time';
  return transcriptEvents(transcript.segments, {
    prefix,
    conversationId,
    occurredAt: isoFromMs(start + (transcript.lastEndMs ?? 0)),
    label: `u${transcript.utterances}`,
    provisional: true,
  });
}

function callEnd({ call, platformCallId, conversationId, prefix }: CallContext, analyzed: boolean): Outcome {
  const given = strictOptString(call, 'disconnection_reason', 'call.disconnection_reason');
  const reason = given !== undefined && given.trim() !== '' ? given : undefined;
  const transcript = readTranscript(call);
  const start = strictOptUnixMs(call, 'start_timestamp', 'call.start_timestamp');
  const end = strictOptUnixMs(call, 'end_timestamp', 'call.end_timestamp');
  const givenDuration = strictOptNumber(call, 'duration_ms', 'call.duration_ms');
  const durationMs = givenDuration !== undefined && givenDuration >= 0 ? givenDuration : undefined;
  const endMs = end
    ?? (start !== undefined && durationMs !== undefined ? start + Math.round(durationMs) : undefined)
    ?? (start !== undefined && transcript.lastEndMs !== undefined ? start + transcript.lastEndMs : undefined)
    ?? start;
  if (endMs === undefined) return 'call.end_timestamp and call.start_timestamp are missing: the end of the call cannot be placed in time';
  const duration = durationMs !== undefined ? secondsOf(durationMs) : start !== undefined && end !== undefined && end >= start ? secondsOf(end - start) : undefined;
  // The whole transcript is here: whether the agent spoke is known, so every reason has its class.
  const cls = classifyEnd(PLATFORM_A_END_REASONS, reason, transcript.agentSpoke)!;
  const analysis = analyzed ? softObject(call.call_analysis) : undefined;
  const custom = softObject(analysis?.custom_analysis_data);
  const callEnd: CallEnd = {
    class: cls,
    endTime: isoFromMs(endMs),
    startTime: start !== undefined ? isoFromMs(start) : undefined,
    duration,
    callerNumber: e164(call.from_number),
    rawReason: reason,
    details: compact({ ...platformCallIdField(platformCallId), cost: costOfCall(call.call_cost), latency: latencyOfCall(call.latency) }),
    recordingUrl: httpUrl(call.recording_url),
    summary: boundedText(analysis?.call_summary, 10_000),
    sentiment: sentimentOf(analysis?.user_sentiment),
    outcome: outcomeOf(custom?.outcome, PLATFORM_A_END_REASONS, reason, verdict(analysis?.call_successful)),
    topics: topicList(custom?.topics),
  };
  const source = analyzed ? 'call_analyzed' : 'call_ended';
  const terminal = terminalEvent(callEnd, `${prefix}:${cls.type}:${source}`, conversationId, isoFromMs(endMs + (analyzed ? 1 : 0)));
  // Same occurred_at from call_ended and call_analyzed: the same transcript gives the same event id.
  const full = transcriptEvents(transcript.segments, { prefix, conversationId, occurredAt: isoFromMs(endMs), label: 'full', provisional: false });
  return [terminal, ...full];
}

interface Transcript {
  segments: TranscriptSegment[];
  /** transcript_object's length. */
  utterances: number;
  agentSpoke: boolean;
  /** The end of the last utterance placed, ms from the call's start. */
  lastEndMs?: number;
}

/**
 * transcript_object as segments: agent → agent, user → caller (other roles are skipped); times from the
 * first and last word (seconds from the call's start → ms); an utterance without word timings is put
 * where the previous one ended, with no length.
 */
function readTranscript(call: Json): Transcript {
  const list = strictOptArray(call, 'transcript_object', 'call.transcript_object') ?? [];
  const segments: TranscriptSegment[] = [];
  let previousEnd = 0;
  let lastEndMs: number | undefined;
  let agentSpoke = false;
  list.forEach((item, i) => {
    const path = `call.transcript_object[${i}]`;
    if (!isPlainObject(item)) malformed(`${path} must be an object`);
    const role = strictOptString(item, 'role', `${path}.role`);
    const speaker = role === 'agent' ? 'agent' : role === 'user' ? 'caller' : undefined;
    // Roles platforms.md does not name (new ones may appear) are skipped, whatever their shape.
    if (speaker === undefined) return;
    const content = strictOptString(item, 'content', `${path}.content`);
    const words = strictOptArray(item, 'words', `${path}.words`) ?? [];
    let first: number | undefined;
    let last: number | undefined;
    words.forEach((word, j) => {
      if (!isPlainObject(word)) malformed(`${path}.words[${j}] must be an object`);
      const wordStart = strictOptNumber(word, 'start', `${path}.words[${j}].start`);
      const wordEnd = strictOptNumber(word, 'end', `${path}.words[${j}].end`);
      if (wordStart !== undefined) first = Math.min(first ?? wordStart, wordStart);
      if (wordEnd !== undefined) last = Math.max(last ?? wordEnd, wordEnd);
    });
    if (content === undefined) return;
    const startSeconds = first ?? last;
    const endSeconds = last ?? first;
    const startMs = startSeconds !== undefined ? clampMs(startSeconds * 1000) : previousEnd;
    const endMs = endSeconds !== undefined ? Math.max(clampMs(endSeconds * 1000), startMs) : startMs;
    const pieces = segmentsOf(speaker, content, startMs, endMs);
    if (pieces.length === 0) return;
    segments.push(...pieces);
    agentSpoke ||= speaker === 'agent';
    previousEnd = endMs;
    lastEndMs = Math.max(lastEndMs ?? endMs, endMs);
  });
  return { segments, utterances: list.length, agentSpoke, lastEndMs };
}

/** call_cost: US cents → USD. */
function costOfCall(value: unknown) {
  const cost = softObject(value);
  if (!cost) return undefined;
  const products = Array.isArray(cost.product_costs) ? cost.product_costs : [];
  return costOf(
    nonNegative(cost.combined_cost, 100),
    products.filter(isPlainObject).filter((p) => typeof p.product === 'string').map((p) => ({ component: p.product as string, amount: nonNegative(p.cost, 100) })),
  );
}

/** latency: `{ e2e: { p50, p90, p99 }, ... }` → one figure per component. */
function latencyOfCall(value: unknown) {
  const latency = softObject(value);
  if (!latency) return undefined;
  const figures = Object.entries(latency)
    .filter((entry): entry is [string, Json] => isPlainObject(entry[1]))
    .map(([component, f]) => compact<LatencyFigures>({ component, p50_ms: nonNegative(f.p50), p90_ms: nonNegative(f.p90), p99_ms: nonNegative(f.p99) }));
  return latencyOf(figures);
}
