/**
 * Retries and reordering converge: the webhooks a platform sends for one call (written by the simulators'
 * own generators, as `placeCall` sends them), mapped to call events and folded into the conversation
 * record, give the same record whatever order they arrive in and however often each is delivered — and
 * that record is the call (status by the end-reason table, each line of the transcript once).
 */
import { describe, expect, it } from '@jest/globals';
import type { CallEvent, VoicePlatform } from '@voice/contracts';
import { attributeToAgent, mapPlatformWebhook } from '@voice/voice-platforms';
import fc from 'fast-check';
import { foldConversation } from '../../../apps/conversations-service/src/conversation/conversation.evolve.js';
import { buildCallTimeline } from '../../../tools/platform-simulators/src/calls/call-timeline.js';
import { CALL_OUTCOMES, type CallOutcome } from '../../../tools/platform-simulators/src/calls/call-options.js';
import { PLATFORM_A_DIAL_FAILURES, platformACallEvents, platformAReason } from '../../../tools/platform-simulators/src/platform-a/call-events.js';
import { PLATFORM_B_DIAL_FAILURES, platformBCallEvents, platformBReason } from '../../../tools/platform-simulators/src/platform-b/call-events.js';

const AGENT = 'agt_convergence';
const STARTED_AT = Date.parse('2026-03-02T10:00:00Z');

/** The raw bodies one call's webhooks carry, in the order the platform sends them. */
function callBodies(platform: VoicePlatform, outcome: CallOutcome, withheld: boolean): string[] {
  const options = { agentId: 'x', outcome, startedAt: STARTED_AT, fromNumber: withheld ? null : '+14155550100' };
  if (platform === 'platform_a') {
    const reason = platformAReason(outcome, undefined);
    const timeline = buildCallTimeline(options, !PLATFORM_A_DIAL_FAILURES.includes(reason), STARTED_AT);
    const agent = { agent_id: 'agent_0123456789abcdef0123456789abcdef', metadata: { external_id: AGENT } } as never;
    return platformACallEvents(timeline, { callId: 'call_conv', agent, toNumber: '+14155550199', reason, recordingUrl: 'http://127.0.0.1:4010/recordings/call_conv.wav' }).map((e) => JSON.stringify(e.body));
  }
  const reason = platformBReason(outcome, undefined);
  const timeline = buildCallTimeline(options, !PLATFORM_B_DIAL_FAILURES.includes(reason), STARTED_AT);
  return platformBCallEvents(timeline, { callId: '5b0e8c2a-3f1d-4e6a-9b7c-2d4e6f8a0b1c', assistantId: 'assistant-1', toNumber: '+14155550199', reason, recordingUrl: 'http://127.0.0.1:4020/recordings/5b0e8c2a.wav' }).map((e) =>
    JSON.stringify(e.body),
  );
}

function eventsOf(platform: VoicePlatform, body: string): CallEvent[] {
  const mapping = mapPlatformWebhook(platform, JSON.parse(body));
  return mapping.result === 'mapped' ? attributeToAgent(mapping.events, AGENT) : [];
}

const record = (platform: VoicePlatform, bodies: string[]) => foldConversation(bodies.flatMap((body) => eventsOf(platform, body)));

const EXPECTED_STATUS: Record<CallOutcome, { status: string; abandonment_reason?: string }> = {
  completed: { status: 'completed' },
  busy: { status: 'abandoned', abandonment_reason: 'busy' },
  'no-answer': { status: 'abandoned', abandonment_reason: 'no_answer' },
  'caller-hangup': { status: 'abandoned', abandonment_reason: 'caller_hangup' },
  failed: { status: 'failed' },
};

describe('platform webhooks: mapping and fold converge over retries and reordering', () => {
  const cases = (['platform_a', 'platform_b'] as const).flatMap((platform) => CALL_OUTCOMES.map((outcome) => [platform, outcome] as const));

  it.each(cases)('%s %s: the call in order is the record the platform meant', (platform, outcome) => {
    const state = record(platform, callBodies(platform, outcome, false))!;
    expect(state).toMatchObject(EXPECTED_STATUS[outcome]);
    const keys = state.transcript.map((s) => `${s.speaker}:${s.start_ms}:${s.text}`);
    expect(new Set(keys).size).toBe(keys.length);
    if (outcome === 'completed') {
      expect(state.transcript).toHaveLength(6);
      expect(state.summary).not.toBeNull();
      expect(state.cost?.amount).toBeGreaterThan(0);
      expect(state.caller_number).toBe('+14155550100');
    }
  });

  it.each(cases)('%s %s: any order, any duplicates, any retry gives the same record', (platform, outcome) => {
    fc.assert(
      fc.property(fc.boolean(), fc.integer({ min: 0, max: 1_000_000 }), fc.array(fc.nat(), { maxLength: 12 }), (withheld, seed, repeats) => {
        const bodies = callBodies(platform, outcome, withheld);
        const expected = record(platform, bodies);
        // A permutation (seeded shuffle) with some deliveries repeated, as at-least-once delivery without order gives.
        const delivered = [...bodies, ...repeats.map((i) => bodies[i % bodies.length])];
        let s = seed;
        for (let i = delivered.length - 1; i > 0; i--) {
          s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
          const j = s % (i + 1);
          [delivered[i], delivered[j]] = [delivered[j], delivered[i]];
        }
        expect(record(platform, delivered)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('a delivery retried with the same bytes maps to the very same events (ids and content)', () => {
    for (const platform of ['platform_a', 'platform_b'] as const) {
      for (const body of callBodies(platform, 'completed', false)) expect(eventsOf(platform, body)).toEqual(eventsOf(platform, body));
    }
  });
});
