/**
 * The conversation fold, as pure functions: the record is what folding the
 * events in `compareEvents` order gives (occurred_at, then the event's place in
 * a call's life, then id), so arrival order and redelivery never change the
 * result. Every fact an event carries ends up in the record: after the end of
 * the call, later events no longer change how it ended but still fill what is
 * unknown.
 */
import { timestampEpochNanos } from '@voice/contracts';
import type {
  AbandonmentReason, CallCost, CallEndDetails, CallError, CallEvent, ConversationCost, ConversationStatus, FollowUpTask,
  IntegrationRecord, LatencyFigures, NetworkInfo, QualityMetrics, Satisfaction, Sentiment, TranscriptSegment,
} from '@voice/contracts';
import { visibleTranscript, type TranscriptEvent } from './transcript.rules.js';

export interface ConversationState {
  id: string;
  agent_id: string;
  status: ConversationStatus;
  caller_number: string | null;
  /** From call.started or the end of the call; see `effectiveStartTime` for the fallback. */
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
  /** The visible transcript (transcript.rules.ts), set by foldConversation once every event is known. */
  transcript: TranscriptSegment[];
  /** The platform's own id of the call, from call.started or the end of the call. */
  platform_call_id: string | null;
  /** The platform's end reason, as it wrote it. */
  end_reason: string | null;
  cost: ConversationCost | null;
  latency: LatencyFigures[];
}

/** The event that ends a call in each terminal status; only the same kind of event refines it later. */
const ENDED_BY: Partial<Record<ConversationStatus, CallEvent['type']>> = {
  completed: 'call.ended',
  failed: 'call.failed',
  abandoned: 'call.abandoned',
};
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
    platform_call_id: null,
    end_reason: null,
    cost: null,
    latency: [],
  };
}

/**
 * Apply one lifecycle event. Events must arrive in `compareEvents` order (foldConversation does that).
 * Transcript events change nothing here: their segments may be placed against the call's start,
 * which is known only once every event is folded, so foldConversation places them afterwards.
 */
export function evolve(state: ConversationState, event: CallEvent): ConversationState {
  if (event.type === 'call.transcript') return state;
  // How a call ended is final: an event of the kind that ended it refines it as the first did (platforms
  // send "ended", then an end-of-call report or analysis with what was not known yet); any other event
  // after the end (by occurred_at; at one instant only an end of another kind comes after it) only fills
  // facts still unknown — the caller and start of a call whose start occurred last, a cost a contradicting
  // end reported.
  if (isTerminal(state.status) && ENDED_BY[state.status] !== event.type) return fillUnknown(state, apply(state, event));
  return apply(state, event);
}

function apply(state: ConversationState, event: Exclude<CallEvent, { type: 'call.transcript' }>): ConversationState {
  switch (event.type) {
    case 'call.started':
      return {
        ...state,
        // A withheld number is absent, not a reason to forget one already known.
        caller_number: event.data.caller_number ?? state.caller_number,
        start_time: event.data.start_time,
        platform_call_id: event.data.platform_call_id ?? state.platform_call_id,
      };
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
        ...endDetails(state, d),
        status: 'completed',
        end_time: d.end_time,
        // Until the platform reports it (an "ended" message may not know it): the last one reported.
        duration: d.duration ?? state.duration,
        outcome: d.outcome ?? state.outcome,
        language: d.language ?? state.language,
        intent: d.intent ?? state.intent,
        satisfaction: d.satisfaction ?? state.satisfaction,
        keywords: d.keywords ?? state.keywords,
        actions_taken: d.actions_taken ?? state.actions_taken,
        follow_up_tasks: d.follow_up_tasks ?? state.follow_up_tasks,
        integrations: d.integrations ?? state.integrations,
        quality: d.quality ?? state.quality,
        network: d.network ?? state.network,
        errors: d.errors ? unionErrors(state.errors, d.errors) : state.errors,
      };
    }
    case 'call.failed':
      return {
        ...state,
        ...endDetails(state, event.data),
        status: 'failed',
        failure_reason: event.data.failure_reason,
        end_time: event.data.end_time ?? state.end_time,
        // Duration until failure: the failure's own value, else the last one reported.
        duration: event.data.duration ?? state.duration,
        errors: event.data.error ? unionErrors(state.errors, [event.data.error]) : state.errors,
      };
    case 'call.abandoned':
      return {
        ...state,
        ...endDetails(state, event.data),
        status: 'abandoned',
        abandonment_reason: event.data.reason,
        end_time: event.data.end_time ?? state.end_time,
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
 * An event's place in a call's life, for events at one instant: platforms stamp several messages with
 * the same time (an end-of-call report at the call's start, an end without a time at the start), and
 * a call starts before it progresses, is transcribed, then ends.
 */
const LIFE_STAGE: Readonly<Record<CallEvent['type'], number>> = {
  'call.started': 0,
  'call.progress': 1,
  'call.transcript': 2,
  'call.ended': 3,
  'call.failed': 3,
  'call.abandoned': 3,
};

/**
 * The one order events are folded in (recording and projection rebuilds alike): occurred_at as an
 * exact instant (offsets differ between platforms; Date.parse would drop everything below the
 * millisecond), then the place in a call's life, then event id, only so that the order is total.
 */
export function compareEvents(a: CallEvent, b: CallEvent, instantOf: (event: CallEvent) => bigint = occurredAtNanos): number {
  const ta = instantOf(a);
  const tb = instantOf(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  const stage = LIFE_STAGE[a.type] - LIFE_STAGE[b.type];
  if (stage !== 0) return stage;
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
  const transcripts: TranscriptEvent[] = [];
  let state: ConversationState | undefined;
  for (const event of ordered) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    // Platforms often deliver the final transcript after the call ended: segments always count.
    if (event.type === 'call.transcript') transcripts.push(event);
    state = evolve(state ?? initialState(event), event);
  }
  if (!state) return undefined;
  // Against the start as known at the end, whichever event brought it and whenever it arrived.
  return { ...state, transcript: visibleTranscript(transcripts, effectiveStartTime(state)) };
}

/** The start time used for sorting and date filters: reported, else the first event's time. */
export function effectiveStartTime(state: ConversationState): string {
  return state.start_time ?? state.first_event_at;
}

/**
 * What an end of the call (of any kind) carries from its platform: each field it carries replaces (the
 * start an end message states is the platform's own account of it, and replaces a start event's).
 */
function endDetails(
  state: ConversationState,
  d: CallEndDetails,
): Pick<
  ConversationState,
  'caller_number' | 'start_time' | 'platform_call_id' | 'end_reason' | 'cost' | 'latency' | 'recording_url' | 'summary' | 'sentiment' | 'topics'
> {
  return {
    caller_number: d.caller_number ?? state.caller_number,
    start_time: d.start_time ?? state.start_time,
    platform_call_id: d.platform_call_id ?? state.platform_call_id,
    end_reason: d.end_reason ?? state.end_reason,
    cost: d.cost ? recordedCost(d.cost) : state.cost,
    latency: d.latency ? d.latency.map((l) => ({ ...l })) : state.latency,
    recording_url: d.recording_url ?? state.recording_url,
    summary: d.summary ?? state.summary,
    sentiment: d.sentiment ?? state.sentiment,
    topics: d.topics ? uniqueTopics(d.topics) : state.topics,
  };
}

/** How the call ended: set by the event that ended it (and its refinements), never filled by another. */
const HOW_IT_ENDED: ReadonlySet<keyof ConversationState> = new Set(['status', 'failure_reason', 'abandonment_reason']);

/**
 * `known`, with every fact it does not know taken from `candidate` (what the late event would have made of
 * it): a fact is unknown while null or empty, a duration while 0 — except an abandoned call's, which has no
 * call time. Errors are a union, so the candidate's are all of them.
 */
function fillUnknown(known: ConversationState, candidate: ConversationState): ConversationState {
  const filled: Record<string, unknown> = { ...known };
  for (const key of Object.keys(known) as Array<keyof ConversationState>) {
    if (HOW_IT_ENDED.has(key)) continue;
    const value = known[key];
    const unknown = value === null || (Array.isArray(value) && value.length === 0) || (key === 'duration' && value === 0 && known.status !== 'abandoned');
    if (unknown || key === 'errors') filled[key] = candidate[key];
  }
  return filled as unknown as ConversationState;
}

function recordedCost(cost: CallCost): ConversationCost {
  return {
    amount: cost.amount,
    currency: cost.currency,
    breakdown: (cost.breakdown ?? []).map(({ component, amount }) => ({ component, amount })),
  };
}

/**
 * The errors known so far and the new ones, each once (the same code, message and time), in first-seen
 * order: a platform repeating its report, or a refined end restating the errors, does not double them.
 */
function unionErrors(known: readonly CallError[], incoming: readonly CallError[]): CallError[] {
  const keyOf = (e: CallError) => JSON.stringify([e.code, e.message, e.occurred_at ?? null]);
  const byKey = new Map<string, CallError>(known.map((e) => [keyOf(e), e]));
  for (const e of incoming) {
    const key = keyOf(e);
    if (!byKey.has(key)) byKey.set(key, { code: e.code, message: e.message, ...(e.occurred_at !== undefined ? { occurred_at: e.occurred_at } : {}) });
  }
  return [...byKey.values()];
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
