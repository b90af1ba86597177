/**
 * What an agent's switches allow us to keep. Applied before an event is stored,
 * so a recording URL or transcript of an agent with recording/transcription off
 * never reaches the database, and re-folding the stored events stays pure.
 */
import { defaultPiiRedaction, type CallEvent } from '@voice/contracts';
import { applyPrivacy, type PrivacySettings } from './privacy-policy.rules.js';

/** The privacy settings are absent only where an agent is made up whole (tests): then they are the defaults. */
export interface AgentSwitches extends Partial<PrivacySettings> {
  recording_enabled: boolean;
  transcription_enabled: boolean;
}

type EndEvent = Extract<CallEvent, { type: 'call.ended' | 'call.failed' | 'call.abandoned' }>;

function isEnd(event: CallEvent): event is EndEvent {
  return event.type === 'call.ended' || event.type === 'call.failed' || event.type === 'call.abandoned';
}

export function applyAgentPolicy(event: CallEvent, agent: AgentSwitches): CallEvent {
  return applyPrivacy(applySwitches(event, agent), {
    pii_redaction: agent.pii_redaction ?? defaultPiiRedaction(),
    store_content: agent.store_content ?? true,
  });
}

function applySwitches(event: CallEvent, agent: AgentSwitches): CallEvent {
  // Any end of a call may carry a recording (one that failed mid-way was recorded too).
  if (isEnd(event) && !agent.recording_enabled && event.data.recording_url !== undefined) {
    const { recording_url: _dropped, ...data } = event.data;
    return { ...event, data } as CallEvent;
  }
  if (event.type === 'call.transcript' && !agent.transcription_enabled) {
    return { ...event, data: { segments: [] } };
  }
  return event;
}

/** A status an agent event left the agent in, from `since_ms` (epoch milliseconds) on. */
export interface AgentStatusChange {
  version: number;
  status: string;
  since_ms: number;
}

/** What conversations-service knows about an agent, learnt from its integration events. */
export interface KnownAgent extends AgentSwitches {
  agent_id: string;
  account_id: string;
  name: string;
  voice_platform: string;
  status: string;
  version: number;
  /** Every status change learnt, in any order (see agentStatusAt). */
  history: AgentStatusChange[];
}

/** Statuses in which an agent answers no new call: paused and deleted agents stop answering. */
const NOT_ANSWERING: ReadonlySet<string> = new Set(['paused', 'deleted']);

/**
 * The agent's status at an instant: that of its newest known change at or
 * before it. Before any known change (a call reported from before the agent
 * was created, or clocks apart) the agent counts as answering.
 */
export function agentStatusAt(history: readonly AgentStatusChange[], atMs: number): string {
  let latest: AgentStatusChange | undefined;
  for (const change of history) {
    if (change.since_ms <= atMs && (latest === undefined || change.version > latest.version)) latest = change;
  }
  return latest?.status ?? 'active';
}

/**
 * Whether the agent answers a call whose first event occurred at `callStartMs`.
 * A call that started before the pause or deletion keeps being recorded (its
 * end and transcript arrive later); one that starts at or after it is not.
 */
export function answersCallStartingAt(history: readonly AgentStatusChange[], callStartMs: number): boolean {
  return !NOT_ANSWERING.has(agentStatusAt(history, callStartMs));
}

/** Whether any known change of the agent can make it refuse a call (the common case needs no conversation look-up). */
export function mayRefuseCalls(history: readonly AgentStatusChange[]): boolean {
  return history.some((change) => NOT_ANSWERING.has(change.status));
}
