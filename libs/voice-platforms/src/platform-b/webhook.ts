/**
 * platform_b webhooks (the "message envelope" family, platforms.md): `{ message: { type, timestamp, call, … } }`,
 * no event id; every event's time is message.timestamp (Unix ms), except:
 * - the end-of-call report's call.started, at startedAt (it says when the call started);
 * - the report's other events, never before endedAt + 1 ms (placed there without message.timestamp): a
 *   report comes after the end, so it refines the `ended` status-update (stamped at the end) whatever its
 *   own stamp says — reports stamped at the call's start are seen — as platform_a's analysis its end.
 * A status-update or transcript without message.timestamp cannot be placed in time: ignored.
 *
 * A status-update `ended` does not carry the transcript, so it cannot tell whether the assistant spoke:
 * for `customer-ended-call` and for reasons the table does not know (whose class depends on that) it is
 * ignored and the end-of-call report decides. Emitting a guess would be final: a different terminal
 * type later changes nothing. (When the message does carry artifact.messages, they are used.)
 */
import type { LatencyFigures, TranscriptSegment } from '@voice/contracts';
import { classifyEnd } from '../webhooks/end-reasons.js';
import { PLATFORM_B_END_REASONS } from './end-reasons.js';
import {
  costOf, latencyOf, outcomeOf, secondsOf, segmentsOf, terminalEvent, transcriptEvents, type CallEnd,
} from '../webhooks/event-builders.js';
import { compact, ignored, mapped, type WebhookSubject } from '../webhooks/results.js';
import type { UnattributedCallEvent, WebhookMapping } from '../webhooks/types.js';
import { isPlainObject } from '@voice/contracts';
import {
  boundedText, clampMs, conversationIdFor, e164, eventIdPrefix, httpUrl, isoFromMs, malformed, nonNegative,
  platformCallIdField, quote, sentimentOf, softObject, strictId, strictObject, strictOptArray, strictOptIsoMs, strictOptNumber,
  strictOptObject, strictOptString, strictOptUnixMs, topicList, verdict, type Json,
} from '../webhooks/values.js';

/** The first part of this platform's event ids. */
const EVENT_ID_TAG = 'pb';

export const PLATFORM_B_MESSAGE_TYPES = ['status-update', 'transcript', 'end-of-call-report'] as const;

export function mapPlatformB(body: unknown): WebhookMapping {
  if (!isPlainObject(body)) return malformed('body must be a JSON object');
  const message = strictObject(body, 'message', 'message');
  const type = message.type;
  if (type === undefined || type === null) return malformed('message.type is missing');
  if (typeof type !== 'string') return malformed('message.type must be a string');
  const loose = isPlainObject(message.call) ? message.call : {};
  const subject: WebhookSubject = {
    eventType: type,
    platformAgentId: typeof loose.assistantId === 'string' ? loose.assistantId : null,
    platformCallId: typeof loose.id === 'string' ? loose.id : null,
  };
  if (!(PLATFORM_B_MESSAGE_TYPES as readonly string[]).includes(type)) return ignored(`event type ${quote(type)} is not handled`, subject);
  const call = strictObject(message, 'call', 'message.call');
  const platformCallId = strictId(call, 'id', 'message.call.id');
  const platformAgentId = strictId(call, 'assistantId', 'message.call.assistantId');
  const ctx: MessageContext = {
    message,
    platformCallId,
    conversationId: conversationIdFor('platform_b', platformCallId),
    prefix: eventIdPrefix('platform_b', EVENT_ID_TAG, platformCallId),
    timestamp: strictOptUnixMs(message, 'timestamp', 'message.timestamp'),
    callerNumber: e164(softObject(call.customer)?.number),
  };
  const result = type === 'status-update' ? statusUpdate(ctx) : type === 'transcript' ? transcript(ctx) : endOfCallReport(ctx);
  if (typeof result === 'string') return ignored(result, { ...subject, platformAgentId, platformCallId });
  return mapped({ eventType: type, platformAgentId, platformCallId }, ctx.conversationId, result);
}

interface MessageContext {
  message: Json;
  platformCallId: string;
  conversationId: string;
  prefix: string;
  timestamp: number | undefined;
  callerNumber: string | undefined;
}

/** Events, or the reason the webhook is ignored. */
type Outcome = UnattributedCallEvent[] | string;

const NO_TIMESTAMP = 'message.timestamp is missing: the event cannot be placed in time';

function statusUpdate(ctx: MessageContext): Outcome {
  const { message, timestamp, prefix, conversationId } = ctx;
  const status = strictOptString(message, 'status', 'message.status');
  if (status === undefined) return malformed('message.status is missing');
  if (status !== 'in-progress' && status !== 'ended') {
    return `status ${quote(status)} is not mapped: only in-progress and ended change a conversation`;
  }
  const reason = endedReason(message);
  const artifact = strictOptObject(message, 'artifact', 'message.artifact');
  if (timestamp === undefined) return NO_TIMESTAMP;
  const at = isoFromMs(timestamp);
  if (status === 'in-progress') {
    return [{
      id: `${prefix}:call.started:in-progress`,
      type: 'call.started',
      conversation_id: conversationId,
      occurred_at: at,
      data: compact({ caller_number: ctx.callerNumber, start_time: at, ...platformCallIdField(ctx.platformCallId) }),
    }];
  }
  const agentSpoke = artifact?.messages !== undefined ? readMessages(artifact, undefined).agentSpoke : undefined;
  const cls = classifyEnd(PLATFORM_B_END_REASONS, reason, agentSpoke);
  if (cls === undefined) {
    return `endedReason ${quote(reason ?? '')} depends on whether the assistant spoke, which a status-update does not tell: the end-of-call-report decides`;
  }
  const end: CallEnd = {
    class: cls,
    endTime: at,
    callerNumber: ctx.callerNumber,
    rawReason: reason,
    details: platformCallIdField(ctx.platformCallId),
    outcome: outcomeOf(undefined, PLATFORM_B_END_REASONS, reason, undefined),
  };
  return [terminalEvent(end, `${prefix}:${cls.type}:ended`, conversationId, at)];
}

function transcript(ctx: MessageContext): Outcome {
  const { message, timestamp } = ctx;
  const kind = strictOptString(message, 'transcriptType', 'message.transcriptType');
  if (kind === undefined) return malformed('message.transcriptType is missing');
  if (kind === 'partial') return 'partial transcript: superseded by the final one';
  if (kind !== 'final') return `transcriptType ${quote(kind)} is not handled`;
  const role = strictOptString(message, 'role', 'message.role');
  if (role === undefined) return malformed('message.role is missing');
  const speaker = speakerOf(role);
  if (speaker === undefined) return `role ${quote(role)} is not handled`;
  const text = strictOptString(message, 'transcript', 'message.transcript');
  if (text === undefined) return malformed('message.transcript is missing');
  if (timestamp === undefined) return NO_TIMESTAMP;
  const segments = segmentsOf(speaker, text, 0, 0);
  if (segments.length === 0) return 'the transcript is empty';
  return transcriptEvents(segments, {
    prefix: ctx.prefix,
    conversationId: ctx.conversationId,
    occurredAt: isoFromMs(timestamp),
    label: `t${timestamp}-${speaker}`,
    provisional: true,
    anchor: 'occurred_at',
  });
}

function endOfCallReport(ctx: MessageContext): Outcome {
  const { message, prefix, conversationId } = ctx;
  const reason = endedReason(message);
  const startedMs = strictOptIsoMs(message, 'startedAt', 'message.startedAt');
  const endedMs = strictOptIsoMs(message, 'endedAt', 'message.endedAt');
  const artifact = strictOptObject(message, 'artifact', 'message.artifact');
  const messages = readMessages(artifact ?? {}, startedMs);
  const endMs = endedMs ?? ctx.timestamp;
  if (endMs === undefined) return 'message.endedAt and message.timestamp are missing: the end of the call cannot be placed in time';
  const at = isoFromMs(endedMs !== undefined ? Math.max(ctx.timestamp ?? endedMs, endedMs + 1) : endMs);
  const cls = classifyEnd(PLATFORM_B_END_REASONS, reason, messages.agentSpoke)!;
  const analysis = softObject(message.analysis);
  const structured = softObject(analysis?.structuredData);
  const end: CallEnd = {
    class: cls,
    endTime: isoFromMs(endMs),
    startTime: startedMs !== undefined ? isoFromMs(startedMs) : undefined,
    duration: startedMs !== undefined && endedMs !== undefined && endedMs >= startedMs ? secondsOf(endedMs - startedMs) : undefined,
    callerNumber: ctx.callerNumber,
    rawReason: reason,
    details: compact({ ...platformCallIdField(ctx.platformCallId), cost: costOfCall(message), latency: latencyOfCall(message.performanceMetrics) }),
    recordingUrl: httpUrl(artifact?.recordingUrl),
    summary: boundedText(analysis?.summary, 10_000),
    sentiment: sentimentOf(structured?.sentiment),
    outcome: outcomeOf(structured?.outcome, PLATFORM_B_END_REASONS, reason, verdict(analysis?.successEvaluation)),
    topics: topicList(structured?.topics),
  };
  const events: UnattributedCallEvent[] = [terminalEvent(end, `${prefix}:${cls.type}:report`, conversationId, at)];
  // The status-updates are not retried: the report says when the call started too. Its call.started has an
  // id of its own (the in-progress status-update's start_time is that message's timestamp, not startedAt, so
  // the two cannot be made identical). An abandoned call never started: its start_time is in call.abandoned.
  if (cls.type !== 'call.abandoned' && startedMs !== undefined) {
    const startTime = isoFromMs(startedMs);
    events.push({
      id: `${prefix}:call.started:report`,
      type: 'call.started',
      conversation_id: conversationId,
      occurred_at: startTime,
      data: compact({ caller_number: ctx.callerNumber, start_time: startTime, ...platformCallIdField(ctx.platformCallId) }),
    });
  }
  events.push(...transcriptEvents(messages.segments, { prefix, conversationId, occurredAt: at, label: 'full', provisional: false }));
  return events;
}

function endedReason(message: Json): string | undefined {
  const given = strictOptString(message, 'endedReason', 'message.endedReason');
  return given !== undefined && given.trim() !== '' ? given : undefined;
}

function speakerOf(role: string): 'agent' | 'caller' | undefined {
  return role === 'assistant' || role === 'bot' ? 'agent' : role === 'user' ? 'caller' : undefined;
}

/**
 * artifact.messages as segments: bot (or assistant) → agent, user → caller, other roles (system, tool
 * calls) skipped; start_ms = secondsFromStart × 1000 (else time − startedAt, else where the previous one
 * ended), end_ms = start_ms + duration (else + endTime − time, else start_ms).
 */
function readMessages(artifact: Json, startedMs: number | undefined): { segments: TranscriptSegment[]; agentSpoke: boolean } {
  const list = strictOptArray(artifact, 'messages', 'message.artifact.messages') ?? [];
  const segments: TranscriptSegment[] = [];
  let previousEnd = 0;
  let agentSpoke = false;
  list.forEach((item, i) => {
    const path = `message.artifact.messages[${i}]`;
    if (!isPlainObject(item)) malformed(`${path} must be an object`);
    const role = strictOptString(item, 'role', `${path}.role`);
    const speaker = role === undefined ? undefined : speakerOf(role);
    if (speaker === undefined) return;
    const text = strictOptString(item, 'message', `${path}.message`);
    const fromStart = strictOptNumber(item, 'secondsFromStart', `${path}.secondsFromStart`);
    const duration = strictOptNumber(item, 'duration', `${path}.duration`);
    const time = strictOptNumber(item, 'time', `${path}.time`);
    const endTime = strictOptNumber(item, 'endTime', `${path}.endTime`);
    if (text === undefined) return;
    const startMs = fromStart !== undefined ? clampMs(fromStart * 1000)
      : time !== undefined && startedMs !== undefined ? clampMs(time - startedMs)
      : previousEnd;
    const length = duration ?? (time !== undefined && endTime !== undefined ? endTime - time : 0);
    const endMs = Math.max(clampMs(startMs + length), startMs);
    const pieces = segmentsOf(speaker, text, startMs, endMs);
    if (pieces.length === 0) return;
    segments.push(...pieces);
    agentSpoke ||= speaker === 'agent';
    previousEnd = endMs;
  });
  return { segments, agentSpoke };
}

/** cost (USD), else costBreakdown.total; the breakdown's parts (stt, llm, tts, transport, and any new ones) but not its total. */
function costOfCall(message: Json) {
  const breakdown = softObject(message.costBreakdown) ?? {};
  const known = ['stt', 'llm', 'tts', 'transport'];
  const names = [...known.filter((k) => k in breakdown), ...Object.keys(breakdown).filter((k) => !known.includes(k) && k !== 'total')];
  return costOf(
    nonNegative(message.cost) ?? nonNegative(breakdown.total),
    names.filter((k) => typeof breakdown[k] === 'number').map((k) => ({ component: k, amount: nonNegative(breakdown[k]) })),
  );
}

/** performanceMetrics: `<component>LatencyAverage` → { component, average_ms }. */
function latencyOfCall(value: unknown) {
  const metrics = softObject(value);
  if (!metrics) return undefined;
  const figures = Object.entries(metrics)
    .map(([key, v]) => ({ component: /^(.+)LatencyAverage$/.exec(key)?.[1], average_ms: nonNegative(v) }))
    .filter((f): f is LatencyFigures & { component: string; average_ms: number } => f.component !== undefined && f.average_ms !== undefined);
  return latencyOf(figures);
}
