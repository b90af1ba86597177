import { describe, expect, it } from '@jest/globals';
// @ts-expect-error the launcher's scripts are plain ES modules without type declarations
import { capAction, liveCallOptions, staleCallEnds, startDemoTraffic } from '../scripts/start/demo-traffic.mjs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  it('a call whose placement was under way when the traffic stopped is not placed (nothing would end it)', async () => {
    // The API the traffic reads, its look at the cap held until the stop has run.
    let capAsked!: () => void;
    const capLookStarted = new Promise<void>((resolve) => (capAsked = resolve));
    let answerCap!: () => void;
    const capAnswered = new Promise<void>((resolve) => (answerCap = resolve));
    const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const api = createServer((req, res) => {
      if (req.url?.startsWith('/v1/agents')) {
        return json(res, { data: [{ id: 'agt_1', voice_platform: 'platform_a', platform_sync: { platform_agent_id: 'pa_1' }, metadata: {}, retention: null }] });
      }
      capAsked();
      void capAnswered.then(() => json(res, { data: [], meta: { total: 0 } }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const begun: unknown[] = [];
    const simulator = {
      beginCall: (options: unknown) => {
        begun.push(options);
        return { callId: `call_${begun.length}`, settled: new Promise(() => undefined), recordingUrl: null };
      },
      recordings: { warmUp: () => undefined, prepare: () => undefined },
    };
    try {
      const traffic = await startDemoTraffic({
        simulators: { platformA: simulator, platformB: simulator }, baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
        apiKey: 'key', callsPerMinute: 1, log: () => undefined, firstCallInMs: 0,
      });
      await capLookStarted;
      await traffic.stop();
      answerCap();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(begun).toEqual([]);
      expect(traffic.placed()).toBe(0);
    } finally {
      api.closeAllConnections();
      await new Promise((resolve) => api.close(resolve));
    }
  });
});
