import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCallEventProblem } from '@voice/contracts';
import { attributeToAgent, mapPlatformWebhook, type WebhookMapping, type WebhookPlatform } from '@voice/voice-platforms';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const FIXTURES: Array<{ platform: WebhookPlatform; name: string; body: unknown }> = readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({ platform: file.startsWith('platform-a') ? 'platform_a' : 'platform_b', name: file, body: JSON.parse(readFileSync(join(dir, file), 'utf8')) }));
const PLATFORMS: WebhookPlatform[] = ['platform_a', 'platform_b'];

/** The invariants every mapping keeps, whatever the body. */
function checkMapping(mapping: WebhookMapping): void {
  expect(['mapped', 'ignored', 'malformed']).toContain(mapping.result);
  if (mapping.result === 'malformed' || mapping.result === 'ignored') {
    expect(typeof mapping.reason).toBe('string');
    expect(mapping.reason.length).toBeGreaterThan(0);
    return;
  }
  expect(mapping.events.length).toBeGreaterThan(0);
  const ids = new Set<string>();
  for (const event of attributeToAgent(mapping.events, 'agt_1')) {
    expect([event.id, findCallEventProblem(event)]).toEqual([event.id, undefined]);
    expect(event.conversation_id).toBe(mapping.conversation_id);
    expect(ids.has(event.id)).toBe(false);
    ids.add(event.id);
  }
}

/** Every path of a JSON value (objects and arrays), to mutate one. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return [prefix, ...value.flatMap((item, i) => paths(item, [...prefix, i]))];
  if (typeof value === 'object' && value !== null) return [prefix, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))];
  return [prefix];
}

function mutate(body: unknown, path: Array<string | number>, replacement: unknown, remove: boolean): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (remove && !Array.isArray(node)) delete node[last];
  else node[last] = replacement;
  return copy;
}

const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', ' ', '\u0000', '\uD800', 'x'.repeat(300), '+14155550123', 'user_hangup', 'customer-ended-call', 'error_x', 'pipeline-error-x'));
const anyValue = fc.oneof(fc.jsonValue(), text, fc.double(), fc.integer(), fc.constantFrom(1e300, -1, 0, 253402300800000, -62135596800001));

describe('mapPlatformWebhook properties', () => {
  it('every fixture maps the same way twice, to valid events', () => {
    for (const { platform, body } of FIXTURES) {
      const first = mapPlatformWebhook(platform, body);
      checkMapping(first);
      expect(mapPlatformWebhook(platform, structuredClone(body))).toEqual(first);
    }
  });

  it('never throws on arbitrary JSON, and answers one of the three results', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PLATFORMS), fc.jsonValue(), (platform, body) => {
        const mapping = mapPlatformWebhook(platform, body);
        checkMapping(mapping);
        expect(mapPlatformWebhook(platform, body)).toEqual(mapping);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on a fixture with any one value replaced or removed; what it maps to is valid and deterministic', () => {
    const cases = fc.constantFrom(...FIXTURES).chain(({ platform, body }) =>
      fc.tuple(fc.constant(platform), fc.constant(body), fc.constantFrom(...paths(body)), anyValue, fc.boolean()));
    fc.assert(
      fc.property(cases, ([platform, body, path, replacement, remove]) => {
        const mutated = mutate(body, path, replacement, remove);
        const mapping = mapPlatformWebhook(platform, mutated);
        checkMapping(mapping);
        expect(mapPlatformWebhook(platform, structuredClone(mutated))).toEqual(mapping);
      }),
      { numRuns: 1500 },
    );
  });

  it('arbitrary ids, reasons and texts still give valid events with ids of at most 128 characters', () => {
    fc.assert(
      fc.property(text, text, text, text, (callId, reason, content, outcome) => {
        const a = {
          event: 'call_analyzed',
          call: {
            call_id: callId, agent_id: 'agent_1', start_timestamp: 1_767_225_600_000, end_timestamp: 1_767_225_660_000, disconnection_reason: reason,
            transcript_object: [{ role: 'agent', content, words: [{ word: 'x', start: 0.5, end: 1 }] }, { role: 'user', content: reason }],
            call_analysis: { call_summary: content, user_sentiment: content, custom_analysis_data: { outcome, topics: [content, reason, outcome] } },
            call_cost: { combined_cost: 1, product_costs: [{ product: content, cost: 1 }] },
          },
        };
        const b = {
          message: {
            type: 'end-of-call-report', timestamp: 1_767_225_660_000, endedReason: reason, startedAt: '2026-01-01T00:00:00Z', endedAt: '2026-01-01T00:01:00Z',
            call: { id: callId, assistantId: 'asst_1', customer: { number: content } },
            artifact: { messages: [{ role: 'bot', message: content, secondsFromStart: 1 }], recordingUrl: content },
            analysis: { summary: content, structuredData: { outcome, sentiment: content, topics: [content] }, successEvaluation: outcome },
          },
        };
        for (const [platform, body] of [['platform_a', a], ['platform_b', b]] as const) {
          const mapping = mapPlatformWebhook(platform, body);
          checkMapping(mapping);
          if (mapping.result === 'mapped') for (const event of mapping.events) expect(event.id.length).toBeLessThanOrEqual(128);
        }
      }),
      { numRuns: 300 },
    );
  });
});
