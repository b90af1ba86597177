import { describe, expect, it } from '@jest/globals';
// @ts-expect-error the launcher's scripts are plain ES modules without type declarations
import { capAction, liveCallOptions, staleCallEnds } from '../scripts/start/demo-traffic.mjs';
import { prng, scenarioCall } from '@voice/call-generator';

describe('demo traffic', () => {
  const now = Date.parse('2026-11-27T10:00:00Z');
  const started = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();

  it('ends only the calls in progress longer than any demo call lasts, as failed (demo_interrupted) five minutes after their start', () => {
    const ends = staleCallEnds(
      [
        { id: 'call_a', agent_id: 'agt_1', start_time: started(2) },
        { id: 'call_b', agent_id: 'agt_2', start_time: started(11) },
        { id: 'demo-live-1', agent_id: 'agt_1', start_time: started(600) },
      ],
      now,
    );
    expect(ends.map((e: { conversation_id: string }) => e.conversation_id)).toEqual(['call_b', 'demo-live-1']);
    expect(ends[0]).toEqual({
      id: 'call_b:demo-interrupted',
      type: 'call.failed',
      conversation_id: 'call_b',
      agent_id: 'agt_2',
      occurred_at: started(6),
      data: { failure_reason: 'demo_interrupted', end_time: started(6), error: { code: 'demo_interrupted', message: expect.stringContaining('demo stopped') } },
    });
  });

  it('at the cap: no call is placed and the agents keep calls as many whole days as the oldest is old, until the sweep brings the total under', () => {
    const oldest = (days: number) => new Date(now - days * 86_400_000).toISOString();
    expect(capAction({ total: 4_999, cap: 5_000, oldestStartTime: oldest(13.7), now, retentionDays: null })).toEqual({ place: true });
    expect(capAction({ total: 5_000, cap: 5_000, oldestStartTime: oldest(13.7), now, retentionDays: null })).toEqual({ place: false, retentionDays: 13 });
    // Set already: the sweep has not run yet.
    expect(capAction({ total: 5_001, cap: 5_000, oldestStartTime: oldest(13.2), now, retentionDays: 13 })).toEqual({ place: false });
    // The next day's turn: lowered again.
    expect(capAction({ total: 5_000, cap: 5_000, oldestStartTime: oldest(12.9), now, retentionDays: 13 })).toEqual({ place: false, retentionDays: 12 });
    // Every call younger than a day (retention's unit): the traffic waits.
    expect(capAction({ total: 5_000, cap: 5_000, oldestStartTime: oldest(0.8), now, retentionDays: null })).toEqual({ place: false });
  });

  it('a scenario is placed as the simulators take it: live, its turns timed, its analysis; a failed dial without a duration', () => {
    const talk = scenarioCall(prng(5), 'appointment_booking');
    expect(liveCallOptions(talk, 'agent_x')).toEqual({
      agentId: 'agent_x',
      outcome: 'completed',
      fromNumber: talk.callerNumber,
      turns: talk.turns,
      durationMs: talk.durationMs,
      analysis: talk.analysis,
      live: true,
    });
    const failed = liveCallOptions(scenarioCall(prng(5), 'failed_call'), 'agent_x');
    expect(failed).toMatchObject({ outcome: 'failed', turns: [], live: true });
    expect(failed).not.toHaveProperty('durationMs');
  });
});
