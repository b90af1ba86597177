import { CALL_OUTCOMES, PlaceCallError, type CallAnalysisOptions, type CallOutcome, type CallSentiment, type CallTurn, type PlaceCallOptions } from './call-options.js';
import { isE164, isHttpUrl } from '../field-formats.js';

/** A platform-neutral account of one call: both platforms' webhook bodies are written from it. */
export interface CallTimeline {
  outcome: CallOutcome;
  /** Whether the call was answered: unanswered calls have no start event and no turns. */
  connected: boolean;
  startedAt: number;
  endedAt: number;
  durationMs: number;
  /** How long after the end the analysis comes (0 unless the call is delivered live). */
  analysisDelayMs: number;
  fromNumber: string | null;
  turns: TimedTurn[];
  analysis: Required<CallAnalysisOptions>;
}

export interface TimedTurn {
  role: 'agent' | 'user';
  text: string;
  /** Offsets from the call's start, ms. */
  startMs: number;
  endMs: number;
  words: Array<{ word: string; startMs: number; endMs: number }>;
}

const DEFAULT_CALLER = '+14155550100';
const MS_PER_WORD = 350;
const FIRST_TURN_AT_MS = 600;
const PAUSE_BETWEEN_TURNS_MS = 700;
const HANG_UP_AFTER_LAST_TURN_MS = 800;
/** A call that connects but where nobody speaks still lasts a moment before the hang-up or the failure. */
const SILENT_CALL_MS = 2_500;
/** A platform's analysis (an LLM reading the transcript) takes a few seconds after the hang-up. */
const DEFAULT_LIVE_ANALYSIS_DELAY_MS = 4_000;

export const DEFAULT_CONVERSATION: readonly CallTurn[] = [
  { role: 'agent', text: 'Hello, thanks for calling. How can I help you today?' },
  { role: 'user', text: "Hi, I'd like to check the status of my order." },
  { role: 'agent', text: 'Sure, could you give me the order number?' },
  { role: 'user', text: 'It is four eight two one.' },
  { role: 'agent', text: 'Thanks. Order 4821 ships tomorrow morning. Anything else?' },
  { role: 'user', text: "No, that's all. Thank you!" },
];

const COMPLETED_ANALYSIS: Required<CallAnalysisOptions> = {
  summary: 'The caller asked about the status of order 4821; the agent said it ships tomorrow morning.',
  sentiment: 'positive',
  successful: true,
  outcome: 'order_status_provided',
  topics: ['order_status', 'shipping'],
};

const UNSUCCESSFUL_ANALYSIS: Record<Exclude<CallOutcome, 'completed'>, Pick<CallAnalysisOptions, 'summary' | 'outcome'>> = {
  busy: { summary: 'The line was busy; the call did not connect.', outcome: 'not_connected' },
  'no-answer': { summary: 'Nobody answered; the call did not connect.', outcome: 'not_connected' },
  'caller-hangup': { summary: 'The caller hung up before the agent spoke.', outcome: 'caller_hung_up' },
  failed: { summary: 'The call failed before the conversation could take place.', outcome: 'call_failed' },
};

/** Checks the platform-neutral options; platform-specific ones (agent, reason) are the platform's business. */
export function validatePlaceCallOptions(options: PlaceCallOptions): void {
  if (typeof options !== 'object' || options === null) throw new PlaceCallError('placeCall needs an options object');
  if (typeof options.agentId !== 'string' || options.agentId === '') throw new PlaceCallError('agentId must be a non-empty string');
  if (options.outcome !== undefined && !CALL_OUTCOMES.includes(options.outcome)) {
    throw new PlaceCallError(`outcome must be one of ${CALL_OUTCOMES.join(', ')}`);
  }
  if (options.fromNumber !== undefined && options.fromNumber !== null && !isE164(options.fromNumber)) throw new PlaceCallError('fromNumber must be E.164 or null');
  if (options.toNumber !== undefined && !isE164(options.toNumber)) throw new PlaceCallError('toNumber must be E.164');
  if (options.reason !== undefined && (typeof options.reason !== 'string' || options.reason === '')) throw new PlaceCallError('reason must be a non-empty string');
  if (options.turns !== undefined) {
    const valid = Array.isArray(options.turns) && options.turns.every((turn) => (turn?.role === 'agent' || turn?.role === 'user') && typeof turn.text === 'string' && turn.text.trim() !== '');
    if (!valid) throw new PlaceCallError('turns must be an array of { role: "agent" | "user", text: non-empty string }');
  }
  if (options.turns !== undefined) validateTurnTimes(options.turns, options.durationMs);
  if (options.startedAt !== undefined && !Number.isFinite(options.startedAt)) throw new PlaceCallError('startedAt must be Unix milliseconds');
  if (options.durationMs !== undefined && (!Number.isFinite(options.durationMs) || options.durationMs < 0)) throw new PlaceCallError('durationMs must be a non-negative number of milliseconds');
  if (options.analysisDelayMs !== undefined && (!Number.isFinite(options.analysisDelayMs) || options.analysisDelayMs < 0)) throw new PlaceCallError('analysisDelayMs must be a non-negative number of milliseconds');
  if (options.webhookUrl !== undefined && !isHttpUrl(options.webhookUrl)) throw new PlaceCallError('webhookUrl must be an http(s) URL');
}

function validateTurnTimes(turns: CallTurn[], durationMs: number | undefined): void {
  const timed = turns.filter((turn) => turn.startMs !== undefined || turn.endMs !== undefined);
  if (timed.length === 0) return;
  if (timed.length !== turns.length) throw new PlaceCallError('turns: give startMs and endMs on every turn or on none');
  let previousEnd = 0;
  for (const turn of turns) {
    if (!Number.isFinite(turn.startMs) || !Number.isFinite(turn.endMs) || turn.startMs! < previousEnd || turn.endMs! <= turn.startMs!) {
      throw new PlaceCallError('turns: each startMs must follow the previous turn\'s endMs, and each endMs its startMs');
    }
    previousEnd = turn.endMs!;
  }
  if (durationMs !== undefined && durationMs < previousEnd) throw new PlaceCallError('durationMs must not end the call before its last turn');
}

/**
 * Lays the call out in time. `connected` is decided by the platform (its dial-failure reasons); the agent
 * speaks first in a completed call, and never in a caller hang-up (that is what makes it one).
 */
export function buildCallTimeline(options: PlaceCallOptions, connected: boolean, now = Date.now()): CallTimeline {
  const outcome = options.outcome ?? 'completed';
  const script = connected ? scriptFor(outcome, options.turns) : [];
  const turns: TimedTurn[] = [];
  let cursor = FIRST_TURN_AT_MS;
  for (const { role, text, startMs, endMs } of script) {
    const said = text.split(/\s+/).filter((word) => word !== '');
    const from = startMs ?? cursor;
    // Timed turns share their time out among their words; untimed ones take MS_PER_WORD a word.
    const perWord = startMs !== undefined && endMs !== undefined ? (endMs - startMs) / said.length : MS_PER_WORD;
    const words = said.map((word, index) => ({
      word,
      startMs: Math.round(from + index * perWord),
      endMs: Math.round(from + (index + 1) * perWord - Math.min(50, perWord / 4)),
    }));
    const to = endMs ?? words[words.length - 1].endMs;
    turns.push({ role, text, startMs: from, endMs: to, words });
    cursor = to + PAUSE_BETWEEN_TURNS_MS;
  }
  const spokenUntil = turns.length === 0 ? 0 : turns[turns.length - 1].endMs;
  const durationMs = !connected ? 0 : options.durationMs ?? (turns.length === 0 ? SILENT_CALL_MS : spokenUntil + HANG_UP_AFTER_LAST_TURN_MS);
  const startedAt = options.startedAt ?? (options.live ? now : now - durationMs);
  return {
    outcome,
    connected,
    startedAt,
    endedAt: startedAt + durationMs,
    durationMs,
    analysisDelayMs: options.analysisDelayMs ?? (options.live ? DEFAULT_LIVE_ANALYSIS_DELAY_MS : 0),
    fromNumber: options.fromNumber === undefined ? DEFAULT_CALLER : options.fromNumber,
    turns,
    analysis: analysisFor(outcome, options.analysis),
  };
}

function scriptFor(outcome: CallOutcome, turns: CallTurn[] | undefined): readonly CallTurn[] {
  if (turns) return turns;
  return outcome === 'completed' ? DEFAULT_CONVERSATION : [];
}

function analysisFor(outcome: CallOutcome, given: CallAnalysisOptions | undefined): Required<CallAnalysisOptions> {
  const defaults: Required<CallAnalysisOptions> =
    outcome === 'completed' ? COMPLETED_ANALYSIS : { ...UNSUCCESSFUL_ANALYSIS[outcome], sentiment: 'unknown' as CallSentiment, successful: false, topics: [] } as Required<CallAnalysisOptions>;
  return { ...defaults, ...definedOnly(given ?? {}) };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}

/** The transcript as plain lines, the way platforms render it for humans. */
export function transcriptText(turns: TimedTurn[], agentLabel: string, userLabel: string): string {
  return turns.map((turn) => `${turn.role === 'agent' ? agentLabel : userLabel}: ${turn.text}`).join('\n');
}
