import { describe, expect, it } from '@jest/globals';
import { historyCallEvents } from './demo-history.js';
import { pickScenario, scenarioCall, SCENARIO_DURATION_MS, SCENARIO_MIX, SCENARIO_NAMES, type ScenarioCall, type ScenarioName } from './demo-scenarios.js';
import { prng } from './generate-calls.js';

const SEEDS = Array.from({ length: 300 }, (_, i) => 1_000 + i * 7);
const transcriptOf = (call: ScenarioCall) => call.turns.map((turn) => turn.text).join('\n');

/** What each scenario's analysis must say, whichever branch the conversation took. */
const EXPECTED: Record<ScenarioName, { topic?: string; outcomes: Record<string, { sentiment: string; successful: boolean; said: RegExp }> }> = {
  billing_dispute: {
    topic: 'billing',
    outcomes: {
      charge_on_hold: { sentiment: 'positive', successful: true, said: /put the charge on hold/ },
      escalated_to_billing_manager: { sentiment: 'negative', successful: false, said: /pass this to our billing manager/ },
    },
  },
  appointment_booking: { topic: 'appointment', outcomes: { appointment_booked: { sentiment: 'positive', successful: true, said: /You're booked for a/ } } },
  cancellation: {
    topic: 'appointment',
    outcomes: {
      appointment_rescheduled: { sentiment: 'positive', successful: true, said: /is now on/ },
      appointment_cancelled: { sentiment: 'neutral', successful: true, said: /is cancelled/ },
    },
  },
  technical_support: {
    topic: 'technical_support',
    outcomes: {
      issue_resolved: { sentiment: 'positive', successful: true, said: /it worked|that did it/ },
      ticket_logged: { sentiment: 'negative', successful: false, said: /logged a ticket/ },
    },
  },
  wrong_number: { topic: 'wrong_number', outcomes: { wrong_number: { sentiment: 'neutral', successful: false, said: /wrong number/ } } },
  voicemail: { topic: 'voicemail', outcomes: { voicemail_left: { sentiment: 'neutral', successful: true, said: /leave your name/ } } },
  caller_hangup: { outcomes: { caller_hung_up: { sentiment: 'unknown', successful: false, said: /^$/ } } },
  failed_call: { outcomes: { call_failed: { sentiment: 'unknown', successful: false, said: /^$/ } } },
};

/** The facts a summary states (names, days, times, dates, amounts, services, businesses): each must have been said in the call. */
function summaryFacts(summary: string): string[] {
  const patterns = [/\$\d+\.\d\d/g, /\d{1,2}:\d\d [AP]M/g, /(Monday|Tuesday|Wednesday|Thursday|Friday)/g, /(March|April|May|June) \d+\w\w/g, /^[A-Z][a-z]+/g];
  return patterns.flatMap((pattern) => summary.match(pattern) ?? []).filter((fact) => fact !== 'The');
}

describe('demo scenarios', () => {
  it('every scenario: the summary states only what was said, and the topics, outcome and sentiment follow the branch the conversation took', () => {
    for (const scenario of SCENARIO_NAMES) {
      const outcomesSeen = new Set<string>();
      for (const seed of SEEDS) {
        const call = scenarioCall(prng(seed), scenario);
        const said = transcriptOf(call);
        const expected = EXPECTED[scenario];
        expect(call.scenario).toBe(scenario);
        const branch = expected.outcomes[call.analysis.outcome];
        expect(branch).toBeDefined();
        outcomesSeen.add(call.analysis.outcome);
        expect({ sentiment: call.analysis.sentiment, successful: call.analysis.successful }).toEqual({ sentiment: branch.sentiment, successful: branch.successful });
        expect(said).toMatch(branch.said);
        if (expected.topic) expect(call.analysis.topics[0]).toBe(expected.topic);
        else expect(call.analysis.topics).toEqual([]);
        for (const fact of summaryFacts(call.analysis.summary)) expect(said).toContain(fact);
      }
      // Every branch of the scenario happens over the seeds.
      expect([...outcomesSeen].sort()).toEqual(Object.keys(EXPECTED[scenario].outcomes).sort());
    }
  });

  it('the summary of a connected call names its caller or the business asked for, as said in the call', () => {
    for (const seed of SEEDS) {
      const call = scenarioCall(prng(seed));
      if (call.turns.length === 0) continue;
      const subject = call.scenario === 'wrong_number' ? /reach (.+) and had/.exec(call.analysis.summary)?.[1] : summaryFacts(call.analysis.summary)[0];
      expect(subject).toBeDefined();
      expect(transcriptOf(call)).toContain(subject);
    }
  });

  it('turns alternate in time: each starts after the previous ends, speaking takes time, the call ends after the last word; durations stay in range', () => {
    for (const seed of SEEDS) {
      const call = scenarioCall(prng(seed));
      const range = SCENARIO_DURATION_MS[call.scenario];
      expect(call.durationMs).toBeGreaterThanOrEqual(range.min);
      expect(call.durationMs).toBeLessThanOrEqual(range.max);
      let previousEnd = 0;
      for (const turn of call.turns) {
        expect(turn.startMs).toBeGreaterThanOrEqual(previousEnd);
        // At least ~200 ms a word: nobody speaks faster.
        expect(turn.endMs - turn.startMs).toBeGreaterThanOrEqual(200 * turn.text.split(' ').length);
        previousEnd = turn.endMs;
      }
      if (call.connected) expect(call.durationMs).toBeGreaterThan(previousEnd);
      expect(call.connected).toBe(call.scenario !== 'failed_call');
      expect(call.end).toBe(call.scenario === 'failed_call' ? 'failed' : call.scenario === 'caller_hangup' ? 'caller-hangup' : 'completed');
    }
  });

  it('no two calls alike, and the same seed gives the same call', () => {
    const calls = SEEDS.map((seed) => scenarioCall(prng(seed), 'appointment_booking'));
    expect(new Set(calls.map((call) => call.durationMs)).size).toBeGreaterThan(SEEDS.length * 0.9);
    expect(new Set(calls.map(transcriptOf)).size).toBeGreaterThan(SEEDS.length * 0.9);
    expect(scenarioCall(prng(42))).toEqual(scenarioCall(prng(42)));
  });

  it('each agent mostly gets its own business: the billing line no bookings, the front desk no billing disputes', () => {
    const random = prng(7);
    const billing = Array.from({ length: 500 }, () => pickScenario(random, SCENARIO_MIX.billing));
    const frontDesk = Array.from({ length: 500 }, () => pickScenario(random, SCENARIO_MIX.front_desk));
    expect(billing).not.toContain('appointment_booking');
    expect(frontDesk).not.toContain('billing_dispute');
    expect(billing.filter((s) => s === 'billing_dispute').length).toBeGreaterThan(180);
    expect(new Set([...billing, ...frontDesk]).size).toBe(SCENARIO_NAMES.length);
  });

  it('as call events: a conversation with its transcript and analysis, a hang-up abandoned, a failed dial failed', () => {
    const options = { conversationId: 'demo-1', agentId: 'agent-1', startedAt: Date.parse('2026-11-20T10:00:00Z'), recordingUrl: 'http://127.0.0.1:4010/recordings/demo-1.wav' };
    const talk = scenarioCall(prng(3), 'cancellation');
    const events = historyCallEvents(talk, options);
    expect(events.map((e) => e.type)).toEqual(['call.started', 'call.ended', 'call.transcript']);
    const ended = events[1].data as Record<string, unknown>;
    expect(ended).toMatchObject({ summary: talk.analysis.summary, outcome: talk.analysis.outcome, topics: talk.analysis.topics, recording_url: options.recordingUrl, duration: Math.round(talk.durationMs / 1000) });
    expect(events[1].occurred_at).toBe(new Date(options.startedAt + talk.durationMs).toISOString());
    expect((events[2].data as { segments: unknown[] }).segments).toHaveLength(talk.turns.length);
    expect(historyCallEvents(scenarioCall(prng(3), 'caller_hangup'), options).map((e) => [e.type, (e.data as { reason?: string }).reason])).toEqual([['call.abandoned', 'caller_hangup']]);
    expect(historyCallEvents(scenarioCall(prng(3), 'failed_call'), options).map((e) => e.type)).toEqual(['call.failed']);
  });
});
