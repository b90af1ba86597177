/**
 * The conversation fold, as pure functions: the record is what folding the
 * events in occurred_at order (ties by event id) gives, so arrival order and
 * redelivery never change the result.
 */
import { timestampEpochNanos } from '@voice/contracts';
import type {
  AbandonmentReason, CallError, CallEvent, ConversationStatus, FollowUpTask, IntegrationRecord, NetworkInfo,
  QualityMetrics, Satisfaction, Sentiment, TranscriptSegment,
} from '@voice/contracts';

export interface ConversationState {
  id: string;
  agent_id: string;
  status: ConversationStatus;
  caller_number: string | null;
  /** From call.started / call.abandoned; see `effectiveStartTime` for the fallback. */
  start_time: string | null;
  /** occurred_at of the earliest event: the start time when no event carried one. */
  first_event_at: string;
  end_time: string | null;
  duration: number;
  sentiment: Sentiment | null;
  outcome: string | null;
  topics: string[];
  summary: string | null;
  recording_url: string | null;
  language: string | null;
  intent: string | null;
  satisfaction: Satisfaction | null;
  keywords: string[];
  actions_taken: string[];
  follow_up_tasks: FollowUpTask[];
  integrations: IntegrationRecord[];
  quality: QualityMetrics | null;
  network: NetworkInfo | null;
  errors: CallError[];
  failure_reason: string | null;
  abandonment_reason: AbandonmentReason | null;
  transcript: TranscriptSegment[];
}

const TERMINAL: ReadonlySet<ConversationStatus> = new Set(['completed', 'failed', 'abandoned']);

export function isTerminal(status: ConversationStatus): boolean {
  return TERMINAL.has(status);
}

export function initialState(first: CallEvent): ConversationState {
  return {
    id: first.conversation_id,
    agent_id: first.agent_id,
    status: 'in_progress',
    caller_number: null,
    start_time: null,
    first_event_at: first.occurred_at,
    end_time: null,
    duration: 0,
    sentiment: null,
    outcome: null,
    topics: [],
    summary: null,
    recording_url: null,
    language: null,
    intent: null,
    satisfaction: null,
    keywords: [],
    actions_taken: [],
    follow_up_tasks: [],
    integrations: [],
    quality: null,
    network: null,
    errors: [],
    failure_reason: null,
    abandonment_reason: null,
    transcript: [],
  };
}

/** Apply one event. Events must arrive in `compareEvents` order (foldConversation does that). */
export function evolve(state: ConversationState, event: CallEvent): ConversationState {
  // Platforms often deliver the final transcript after the call ended: segments always count.
  if (event.type === 'call.transcript') {
    return { ...state, transcript: mergeSegments(state.transcript, event.data.segments) };
  }
  // Terminal states are final: later lifecycle events (by occurred_at) change nothing.
  if (isTerminal(state.status)) return state;

  switch (event.type) {
    case 'call.started':
      return { ...state, caller_number: event.data.caller_number, start_time: event.data.start_time };
    case 'call.progress':
      return {
        ...state,
        duration: event.data.duration ?? state.duration,
        sentiment: event.data.sentiment ?? state.sentiment,
        topics: event.data.topics ? uniqueTopics(event.data.topics) : state.topics,
      };
    case 'call.ended': {
      const d = event.data;
      return {
        ...state,
        status: 'completed',
        end_time: d.end_time,
        duration: d.duration,
        summary: d.summary ?? state.summary,
        sentiment: d.sentiment ?? state.sentiment,
        outcome: d.outcome ?? state.outcome,
        topics: d.topics ? uniqueTopics(d.topics) : state.topics,
        recording_url: d.recording_url ?? state.recording_url,
        language: d.language ?? state.language,
        intent: d.intent ?? state.intent,
        satisfaction: d.satisfaction ?? state.satisfaction,
        keywords: d.keywords ?? state.keywords,
        actions_taken: d.actions_taken ?? state.actions_taken,
        follow_up_tasks: d.follow_up_tasks ?? state.follow_up_tasks,
        integrations: d.integrations ?? state.integrations,
        quality: d.quality ?? state.quality,
        network: d.network ?? state.network,
        errors: d.errors ? [...state.errors, ...d.errors] : state.errors,
      };
    }
    case 'call.failed':
      return {
        ...state,
        status: 'failed',
        failure_reason: event.data.failure_reason,
        end_time: event.data.end_time ?? state.end_time,
        // Duration until failure: the failure's own value, else the last one reported.
        duration: event.data.duration ?? state.duration,
        errors: event.data.error ? [...state.errors, event.data.error] : state.errors,
      };
    case 'call.abandoned':
      return {
        ...state,
        status: 'abandoned',
        abandonment_reason: event.data.reason,
        caller_number: event.data.caller_number ?? state.caller_number,
        start_time: event.data.start_time ?? state.start_time,
        // The caller hung up before connecting: there is no call time to report.
        duration: 0,
      };
  }
}

/** The exact instant of an event, in nanoseconds since the epoch (occurred_at carries up to nine fractional digits). */
export function occurredAtNanos(event: CallEvent): bigint {
  return timestampEpochNanos(event.occurred_at);
}

/**
 * occurred_at as an exact instant (offsets differ between platforms; Date.parse would
 * drop everything below the millisecond), ties broken by event id.
 */
export function compareEvents(a: CallEvent, b: CallEvent, instantOf: (event: CallEvent) => bigint = occurredAtNanos): number {
  const ta = instantOf(a);
  const tb = instantOf(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  // Same id twice with different content can only be a broken publisher; pick one deterministically.
  const ja = JSON.stringify(a);
  const jb = JSON.stringify(b);
  return ja < jb ? -1 : ja > jb ? 1 : 0;
}

/** Fold every event of one conversation, whatever order they arrived in; duplicates (same id) count once. */
export function foldConversation(events: readonly CallEvent[]): ConversationState | undefined {
  // Each instant is computed once, not once per comparison.
  const instants = new Map<CallEvent, bigint>(events.map((e) => [e, occurredAtNanos(e)]));
  const ordered = [...events].sort((a, b) => compareEvents(a, b, (e) => instants.get(e)!));
  const seen = new Set<string>();
  let state: ConversationState | undefined;
  for (const event of ordered) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    state = evolve(state ?? initialState(event), event);
  }
  return state;
}

/** The start time used for sorting and date filters: reported, else the first event's time. */
export function effectiveStartTime(state: ConversationState): string {
  return state.start_time ?? state.first_event_at;
}

function segmentKey(s: TranscriptSegment): string {
  return JSON.stringify([s.start_ms, s.end_ms, s.speaker, s.text]);
}

/** Ordered by start_ms (then end_ms, speaker, text, so the order is total), without duplicates. */
export function mergeSegments(existing: readonly TranscriptSegment[], incoming: readonly TranscriptSegment[]): TranscriptSegment[] {
  const byKey = new Map<string, TranscriptSegment>();
  for (const s of [...existing, ...incoming]) {
    const clean = { speaker: s.speaker, text: s.text, start_ms: s.start_ms, end_ms: s.end_ms };
    byKey.set(segmentKey(clean), clean);
  }
  return [...byKey.entries()].sort(([ka, a], [kb, b]) => a.start_ms - b.start_ms || a.end_ms - b.end_ms || (ka < kb ? -1 : ka > kb ? 1 : 0)).map(([, s]) => s);
}

/** Topics as reported, without repeats (case-insensitive), in first-seen order. */
function uniqueTopics(topics: readonly string[]): string[] {
  const seen = new Set<string>();
  return topics.filter((t) => {
    const key = t.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
