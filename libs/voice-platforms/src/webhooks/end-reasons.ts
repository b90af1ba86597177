/**
 * How a call's end maps onto our conversation status: the table at the end of platforms.md, as data,
 * one table per platform (platform-<name>/end-reasons.ts), read here. The raw reason is always kept
 * (end_reason; failure_reason for failed calls).
 */
import type { AbandonmentReason } from '@voice/contracts';

export interface EndReasonTable {
  /** Reasons that mean the call never connected. */
  abandoned: Readonly<Record<string, AbandonmentReason>>;
  /** The caller hung up: `caller_hangup` when the agent had not spoken yet, else an ordinary completed call. */
  callerHangup: string;
  failed: { exact: readonly string[]; prefixes: readonly string[] };
  /** Every other reason platforms.md names: completed. */
  completed: readonly string[];
  /** Completed reasons that say what came of the call when the analysis gives no outcome label. */
  transferred: readonly string[];
  voicemail: readonly string[];
}

export type EndClass =
  | { type: 'call.ended' }
  | { type: 'call.failed'; failure_reason: string }
  | { type: 'call.abandoned'; reason: AbandonmentReason };

/** Stands for the reason when a platform sent none (failure_reason must not be empty). */
export const MISSING_REASON = 'unknown';

/**
 * Our terminal event for a platform end reason. `agentSpoke` is whether the agent (assistant) said
 * anything: undefined when the message cannot tell, and then the answer is undefined for every reason
 * whose class depends on it (the caller's hang-up, a reason the table does not know).
 */
export function classifyEnd(table: EndReasonTable, reason: string | undefined, agentSpoke: boolean | undefined): EndClass | undefined {
  if (reason !== undefined && Object.hasOwn(table.abandoned, reason)) return { type: 'call.abandoned', reason: table.abandoned[reason] };
  if (reason !== undefined && (table.failed.exact.includes(reason) || table.failed.prefixes.some((p) => reason.startsWith(p)))) {
    return { type: 'call.failed', failure_reason: reason };
  }
  if (reason !== undefined && table.completed.includes(reason)) return { type: 'call.ended' };
  if (agentSpoke === undefined) return undefined;
  if (reason === table.callerHangup) return agentSpoke ? { type: 'call.ended' } : { type: 'call.abandoned', reason: 'caller_hangup' };
  // A reason the table does not know (or none): completed if the agent spoke, else failed.
  return agentSpoke ? { type: 'call.ended' } : { type: 'call.failed', failure_reason: reason ?? MISSING_REASON };
}

/** The outcome a completed call's end reason implies when the analysis gives no label. */
export function outcomeOfReason(table: EndReasonTable, reason: string | undefined): 'transferred' | 'voicemail' | undefined {
  if (reason === undefined) return undefined;
  if (table.transferred.includes(reason)) return 'transferred';
  if (table.voicemail.includes(reason)) return 'voicemail';
  return undefined;
}
