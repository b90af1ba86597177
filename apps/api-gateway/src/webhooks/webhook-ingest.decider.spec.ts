import { describe, expect, it } from '@jest/globals';
import { mapPlatformWebhook } from '@voice/voice-platforms';
import { decideDelivery, fingerprintOf, isDeliveryId, MAX_CALL_EVENT_BYTES, SAME_ANSWER, signatureRefusal, type DeliveryBody } from './webhook-ingest.decider.js';

const CALL_ID = '5b0e8c2a-3f1d-4e6a-9b7c-2d4e6f8a0b1c';
const PLATFORM_AGENT_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

/** A platform_b call that started (its status update), as the platform sends it. */
function callStarted(status = 'in-progress'): Buffer {
  const message = {
    type: 'status-update',
    timestamp: 1767225600150,
    call: { id: CALL_ID, assistantId: PLATFORM_AGENT_ID, type: 'inboundPhoneCall', customer: { number: '+14155550123' }, phoneNumber: { number: '+14155550199' } },
    status,
  };
  return Buffer.from(JSON.stringify({ message }));
}

const read = (body: Buffer): DeliveryBody => ({ mapping: mapPlatformWebhook('platform_b', JSON.parse(body.toString('utf8'))) });

describe('decideDelivery', () => {
  it('a body that is not JSON, or not the platform’s shape, fails with the reason and records no event', () => {
    expect(decideDelivery('platform_b', { unreadable: 'Unexpected token' }, undefined)).toMatchObject({ outcome: 'failed', reason: 'The body is not JSON: Unexpected token', events: [] });
    expect(decideDelivery('platform_b', read(Buffer.from('{}')), 'agt_1')).toMatchObject({
      outcome: 'failed', reason: expect.stringMatching(/^The body is not a platform_b webhook: /), events: [], platformAgentId: null,
    });
  });

  it('a webhook that records nothing is ignored, naming the call and the platform agent', () => {
    expect(decideDelivery('platform_b', read(callStarted('ringing')), undefined)).toMatchObject({
      outcome: 'ignored', reason: expect.any(String), eventType: 'status-update', platformCallId: CALL_ID, platformAgentId: PLATFORM_AGENT_ID, events: [],
    });
  });

  it('the account’s agent makes it accepted, with the call events attributed to that agent', () => {
    const found = decideDelivery('platform_b', read(callStarted()), 'agt_1');
    expect(found).toMatchObject({ outcome: 'accepted', reason: null, eventType: 'status-update', conversationId: CALL_ID, platformCallId: CALL_ID, platformAgentId: PLATFORM_AGENT_ID });
    expect(found.events.map((e) => [e.type, e.agent_id, e.conversation_id])).toEqual([['call.started', 'agt_1', CALL_ID]]);
  });

  it('a platform agent not linked to an agent of the account is ignored, to be replayed once it is', () => {
    expect(decideDelivery('platform_b', read(callStarted()), undefined)).toMatchObject({
      outcome: 'ignored', events: [], conversationId: null, reason: `The platform_b agent ${PLATFORM_AGENT_ID} is not linked to an agent of this account (yet): replay the delivery once it is.`,
    });
  });

  it('call events that break the call-event contract fail the delivery, naming the event', () => {
    const body = read(callStarted());
    if (!('mapping' in body) || body.mapping.result !== 'mapped') throw new Error('expected a mapped body');
    const broken: DeliveryBody = { mapping: { ...body.mapping, events: body.mapping.events.map((e) => ({ ...e, occurred_at: 'yesterday' })) } };
    expect(decideDelivery('platform_b', broken, 'agt_1')).toMatchObject({ outcome: 'failed', events: [], reason: expect.stringMatching(/^It maps to call event .+, which is not valid: /) });
  });

  it('keeps every call event within the bus’s size', () => {
    expect(MAX_CALL_EVENT_BYTES).toBeLessThan(1024 * 1024);
  });
});

describe('signatureRefusal', () => {
  it('only a verified signature with a stale timestamp learns that; everything else is the same invalid_signature', () => {
    expect(signatureRefusal({ ok: false, reason: 'stale_timestamp' }).code).toBe('stale_timestamp');
    expect(signatureRefusal({ ok: false, reason: 'invalid_signature' })).toEqual({ code: 'invalid_signature', message: SAME_ANSWER });
    expect(signatureRefusal(undefined)).toEqual({ code: 'invalid_signature', message: SAME_ANSWER });
  });
});

describe('fingerprintOf and isDeliveryId', () => {
  it('the same call events in the same order give the same fingerprint, another order another', () => {
    const { events } = decideDelivery('platform_b', read(callStarted()), 'agt_1');
    const twice = [...events, { ...events[0], id: 'other' }];
    expect(fingerprintOf(events)).toBe(fingerprintOf(structuredClone(events)));
    expect(fingerprintOf(twice)).not.toBe(fingerprintOf([...twice].reverse()));
  });

  it('a delivery id is whd_ and 24 hex digits', () => {
    expect([isDeliveryId('whd_0123456789abcdef01234567'), isDeliveryId('whd_xyz'), isDeliveryId('agt_0123456789abcdef01234567')]).toEqual([true, false, false]);
  });
});
