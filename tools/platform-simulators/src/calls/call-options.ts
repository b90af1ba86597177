/** What a simulated call is asked to look like, and what became of its webhook deliveries. */

/**
 * How the call ends, in our own terms (platforms.md, "How a call's end maps onto our conversation status"):
 * `caller-hangup` is a hang-up before the agent's first utterance; `failed` uses `reason` (or the platform's
 * default error reason) and never connects when that reason is a dial failure.
 */
export type CallOutcome = 'completed' | 'busy' | 'no-answer' | 'caller-hangup' | 'failed';
export const CALL_OUTCOMES: readonly CallOutcome[] = ['completed', 'busy', 'no-answer', 'caller-hangup', 'failed'];

export type CallSentiment = 'positive' | 'neutral' | 'negative' | 'unknown';

export interface CallTurn {
  role: 'agent' | 'user';
  text: string;
  /**
   * When the turn is said, ms from the moment the call connected: give both on every turn or on none (then
   * each word takes 350 ms and turns follow each other 700 ms apart).
   */
  startMs?: number;
  endMs?: number;
}

export interface CallAnalysisOptions {
  summary?: string;
  sentiment?: CallSentiment;
  successful?: boolean;
  /** snake_case label, sent as `custom_analysis_data.outcome` (a) / `structuredData.outcome` (b). */
  outcome?: string;
  topics?: string[];
}

export interface DeliveryOptions {
  /** Extra attempts after a non-2xx answer or a timeout. platform_a: 3 by default, at most 3; platform_b: 0 by default, at most 10. */
  retries?: number;
  /** Wait before the first retry (ms); platform_b doubles it for each further retry. 1,000 by default. */
  retryDelayMs?: number;
  /** An attempt without an answer after this long counts as failed (ms). 10,000 by default. */
  timeoutMs?: number;
}

export interface CallChaosOptions {
  /** Deliver each event (`true`) or the events of these types twice. */
  duplicate?: boolean | string[];
  /** `end-before-start`: the call's end (a: `call_ended`; b: the `ended` status and the report) arrives first. `reverse`: every event in reverse. */
  reorder?: 'end-before-start' | 'reverse';
  /** Event types never delivered (a lost delivery). */
  omit?: string[];
  /** Adds an event of a type platforms.md does not list (a: `call_recording_ready`, b: `speech-update`). */
  unknownEvent?: boolean;
}

export interface PlaceCallOptions {
  /** The platform's agent id (a) or assistant id (b); the call's webhooks go to its `webhook_url` / `server.url`. */
  agentId: string;
  outcome?: CallOutcome;
  /** The platform's raw end reason, overriding the outcome's default (`agent_hangup`, `dial_busy`, `pipeline-error-…`). */
  reason?: string;
  /** The caller; `null` = withheld. `+14155550100` by default. */
  fromNumber?: string | null;
  /** The number called; by default the number bound to the agent, else `+14155550199`. */
  toNumber?: string;
  /** What is said; a short order-status conversation by default (only for calls that connect). */
  turns?: CallTurn[];
  /** When the call started (Unix ms); by default so that it ends now (`live`: it starts now). */
  startedAt?: number;
  /** How long the connected call lasts, ms; by default 800 ms after the last word (2.5 s when nobody speaks). */
  durationMs?: number;
  /**
   * Deliver each event when it happens rather than all at once: the start when the call connects, each turn
   * as it is finished being said, the end at the hang-up, the analysis `analysisDelayMs` later.
   */
  live?: boolean;
  /** With `live`: how long after the hang-up the analysis arrives (4,000 ms by default). */
  analysisDelayMs?: number;
  analysis?: CallAnalysisOptions;
  /** Whether the call has a recording URL; true by default. */
  recorded?: boolean;
  /** Sends the webhooks here instead of the agent's own URL. */
  webhookUrl?: string;
  delivery?: DeliveryOptions;
  chaos?: CallChaosOptions;
}

export interface DeliveryAttempt {
  /** Unix ms when the attempt was sent. */
  at: number;
  /** The receiver's status; `null` when it did not answer (refused, reset, timeout). */
  status: number | null;
  error?: string;
}

export interface EventDelivery {
  type: string;
  /** The exact bytes sent (and signed). */
  rawBody: string;
  attempts: DeliveryAttempt[];
  delivered: boolean;
}

/** A call placed, its webhooks still being delivered (`live` calls take as long as the call). */
export interface BegunCall {
  platform: 'platform_a' | 'platform_b';
  callId: string;
  /** Where its recording is served, for a connected recorded call. */
  recordingUrl?: string;
  /** Resolves once every delivery is settled. */
  settled: Promise<PlacedCall>;
}

export interface PlacedCall {
  platform: 'platform_a' | 'platform_b';
  callId: string;
  agentId: string;
  outcome: CallOutcome;
  /** The raw end reason sent (`disconnection_reason` / `endedReason`). */
  reason: string;
  webhookUrl: string;
  /** One entry per event sent, in sending order (after chaos). */
  deliveries: EventDelivery[];
}

/** Refusal of `placeCall` options; the control API answers it with 400 (404 for an unknown agent). */
export class PlaceCallError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 = 400,
  ) {
    super(message);
    this.name = 'PlaceCallError';
  }
}
