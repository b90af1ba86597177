/**
 * A scenario call as the call events a platform's webhooks would have become: the demo's history is posted
 * through POST /v1/call-events with the same conversations the live traffic sends through the simulators.
 */
import type { CallEvent, TranscriptSegment } from '@voice/contracts';
import type { ScenarioCall } from './demo-scenarios.js';

export interface HistoryCallOptions {
  conversationId: string;
  agentId: string;
  /** Unix ms when the call rang. */
  startedAt: number;
  /** Where its recording is served (connected calls only). */
  recordingUrl?: string;
  /** US dollars a minute, so costs vary from call to call as platforms' prices do. */
  usdPerMinute?: number;
}

export function historyCallEvents(call: ScenarioCall, options: HistoryCallOptions): CallEvent[] {
  const { conversationId, agentId, startedAt } = options;
  let seq = 0;
  const iso = (ms: number) => new Date(startedAt + ms).toISOString();
  const event = <T extends CallEvent['type']>(type: T, atMs: number, data: Extract<CallEvent, { type: T }>['data']): CallEvent =>
    ({ id: `${conversationId}:${++seq}`, type, conversation_id: conversationId, agent_id: agentId, occurred_at: iso(atMs), data }) as CallEvent;
  const caller = call.callerNumber === null ? {} : { caller_number: call.callerNumber };
  if (!call.connected) {
    return [event('call.failed', 0, { failure_reason: 'dial_failed', ...caller, start_time: iso(0), end_time: iso(0), duration: 0 })];
  }
  if (call.turns.length === 0) {
    return [event('call.abandoned', call.durationMs, { reason: 'caller_hangup', ...caller, start_time: iso(0), end_time: iso(call.durationMs) })];
  }
  const segments: TranscriptSegment[] = call.turns.map((turn) => ({ speaker: turn.role === 'agent' ? 'agent' : 'caller', text: turn.text, start_ms: turn.startMs, end_ms: turn.endMs }));
  const seconds = Math.round(call.durationMs / 1000);
  const amount = Math.round((call.durationMs / 60_000) * (options.usdPerMinute ?? 0.09) * 10_000) / 10_000;
  const { summary, topics, outcome, sentiment } = call.analysis;
  return [
    event('call.started', 0, { ...caller, start_time: iso(0) }),
    event('call.ended', call.durationMs, {
      end_time: iso(call.durationMs),
      duration: seconds,
      summary,
      ...(sentiment === 'unknown' ? {} : { sentiment }),
      outcome,
      topics,
      language: 'en',
      cost: { amount, currency: 'USD' },
      ...(options.recordingUrl ? { recording_url: options.recordingUrl } : {}),
    }),
    event('call.transcript', call.durationMs + 1_000, { segments }),
  ];
}
