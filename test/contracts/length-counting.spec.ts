import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { findCreateAgentProblem, findUpdateAgentProblem } from '../../libs/contracts/src/agent-payloads.js';
import { findCallEventProblem } from '../../libs/contracts/src/call-event-payloads.js';
import { findConfigureIntegrationProblem } from '../../libs/contracts/src/integrations.js';
import { charCount } from '../../libs/contracts/src/validation.js';

/** A character plus an emoji-presentation selector: 2 code points, 3 UTF-16 units; the old validator counted 1. */
const EMOJI_WITH_SELECTOR = '😀\uFE0F';
const EMOJI = '😀';

describe('lengths are Unicode code points everywhere', () => {
  it('counts code points: a surrogate pair is one, a variation selector is one more', () => {
    expect(charCount('abc')).toBe(3);
    expect(charCount(EMOJI)).toBe(1);
    expect(charCount(EMOJI_WITH_SELECTOR)).toBe(2);
    expect(charCount('e\u0301')).toBe(2);
  });

  it('agent name (100): 100 emoji pass, 100 emoji with a selector (200 code points) are refused', () => {
    expect(findCreateAgentProblem({ name: EMOJI.repeat(100), voice_platform: 'platform_a' })).toBeUndefined();
    expect(findCreateAgentProblem({ name: EMOJI_WITH_SELECTOR.repeat(100), voice_platform: 'platform_a' })).toMatchObject({
      code: 'invalid_parameter',
      field: 'name',
      message: 'name must be at most 100 characters.',
    });
    expect(findUpdateAgentProblem({ name: EMOJI_WITH_SELECTOR.repeat(51) })).toMatchObject({ field: 'name' });
  });

  it('system_prompt (10,000): 30,000 UTF-16 units of emoji with selectors (20,000 code points) are refused', () => {
    const prompt = EMOJI_WITH_SELECTOR.repeat(10_000);
    expect(prompt.length).toBe(30_000);
    expect(findCreateAgentProblem({ name: 'A', voice_platform: 'platform_a', system_prompt: prompt })).toMatchObject({ field: 'system_prompt' });
    expect(findCreateAgentProblem({ name: 'A', voice_platform: 'platform_a', system_prompt: EMOJI.repeat(10_000) })).toBeUndefined();
  });

  it('integration secrets and call-event texts count the same way', () => {
    const body = { api_key: EMOJI_WITH_SELECTOR.repeat(251), webhook_secret: 'whsec_0123456789abcdef' };
    expect(findConfigureIntegrationProblem(body)).toMatchObject({ field: 'api_key' });
    const event = {
      id: 'e1', type: 'call.ended', conversation_id: 'c1', agent_id: 'agt_1', occurred_at: '2026-01-01T00:00:00Z',
      data: { end_time: '2026-01-01T00:00:00Z', duration: 1, outcome: 'x'.repeat(64) },
    };
    expect(findCallEventProblem(event)).toBeUndefined();
    expect(findCallEventProblem({ ...event, agent_id: EMOJI_WITH_SELECTOR.repeat(65) })).toMatchObject({ field: 'agent_id' });
    expect(findCallEventProblem({ ...event, agent_id: EMOJI.repeat(128) })).toBeUndefined();
  });

  it('agrees with JSON Schema maxLength (what the OpenAPI document states) on any string (property)', () => {
    const ajv = new Ajv2020({ strict: false });
    const schema = ajv.compile({ type: 'string', maxLength: 100 });
    const piece = fc.constantFrom('a', 'é', 'e\u0301', EMOJI, EMOJI_WITH_SELECTOR, '\uFE0E', '漢', '👩‍👩‍👧');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 120 }), (pieces) => {
        const name = `N${pieces.join('')}`;
        const refused = findCreateAgentProblem({ name, voice_platform: 'platform_a' })?.field === 'name';
        return refused === !schema(name);
      }),
    );
  });
});
