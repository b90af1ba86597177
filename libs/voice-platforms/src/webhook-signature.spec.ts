import { describe, expect, it } from '@jest/globals';
import { signPlatformAWebhook, signPlatformBWebhook } from '@voice/platform-simulators';
import fc from 'fast-check';
import { verifyPlatformAWebhook } from './platform-a/signature.js';
import { verifyPlatformBWebhook } from './platform-b/signature.js';
import { verifyWebhook } from './registry.js';
import { WEBHOOK_TOLERANCE_MS, type WebhookHeaders } from './webhook-signature.js';

const SECRET = 'whsec_integration_one_0123456789';
const OTHER_SECRET = 'whsec_integration_two_0123456789';
const NOW = Date.parse('2026-11-24T12:00:00.000Z');
const body = Buffer.from('{"event":"call_ended","call":{"call_id":"c1","agent_id":"agent_1","transcript_object":[]}}');
/** The simulators sign as the platforms do (their own code), with the header names the platforms use; Node lower-cases names. */
const lower = (headers: Record<string, string>): WebhookHeaders => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
const signedA = (raw: Buffer | string, secret = SECRET, at = NOW) => lower(signPlatformAWebhook(raw, secret, at));
const signedB = (raw: Buffer | string, secret = SECRET, atSeconds = Math.floor(NOW / 1000)) => lower(signPlatformBWebhook(raw, secret, atSeconds));
const invalid = { ok: false, reason: 'invalid_signature' };
const stale = { ok: false, reason: 'stale_timestamp' };

describe.each([
  ['platform_a', verifyPlatformAWebhook, (raw: Buffer | string, secret?: string, atMs = NOW) => signedA(raw, secret, atMs)],
  ['platform_b', verifyPlatformBWebhook, (raw: Buffer | string, secret?: string, atMs = NOW) => signedB(raw, secret, Math.floor(atMs / 1000))],
] as const)('%s webhook signatures', (platform, verify, sign) => {
  it('accepts the platform’s signature over the raw bytes, with the signing time', () => {
    expect(verify(body, sign(body), SECRET, NOW)).toEqual({ ok: true, signed_at_ms: NOW });
    expect(verifyWebhook(platform, body, sign(body), SECRET, NOW)).toMatchObject({ ok: true });
  });

  it('refuses a wrong secret and another integration’s secret', () => {
    expect(verify(body, sign(body, 'not-the-secret'), SECRET, NOW)).toEqual(invalid);
    expect(verify(body, sign(body, OTHER_SECRET), SECRET, NOW)).toEqual(invalid);
  });

  it('refuses a body changed by one byte, and the same JSON re-serialised', () => {
    const changed = Buffer.from(body);
    changed[10] ^= 1;
    expect(verify(changed, sign(body), SECRET, NOW)).toEqual(invalid);
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
    expect(verify(reserialised, sign(body), SECRET, NOW)).toEqual(invalid);
  });

  it('refuses timestamps more than five minutes away in either direction, and only once the signature holds', () => {
    expect(verify(body, sign(body, SECRET, NOW - WEBHOOK_TOLERANCE_MS + 1_000), SECRET, NOW)).toMatchObject({ ok: true });
    expect(verify(body, sign(body, SECRET, NOW - WEBHOOK_TOLERANCE_MS - 1_000), SECRET, NOW)).toEqual(stale);
    expect(verify(body, sign(body, SECRET, NOW + WEBHOOK_TOLERANCE_MS + 1_000), SECRET, NOW)).toEqual(stale);
    // A stale delivery with a wrong signature learns nothing about its timestamp.
    expect(verify(body, sign(body, OTHER_SECRET, NOW - 3_600_000), SECRET, NOW)).toEqual(invalid);
  });

  it('refuses missing headers', () => {
    expect(verify(body, {}, SECRET, NOW)).toEqual(invalid);
    for (const name of Object.keys(sign(body))) {
      const headers = { ...sign(body) };
      delete (headers as Record<string, unknown>)[name];
      expect(verify(body, headers, SECRET, NOW)).toEqual(invalid);
    }
  });

  it('never accepts a body it was not given the signature of (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 }), (a, b) => {
        const signed = sign(Buffer.from(a));
        const verdict = verify(Buffer.from(b), signed, SECRET, NOW);
        return Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0 ? verdict.ok : !verdict.ok;
      }),
    );
  });
});

describe('malformed signature headers', () => {
  const a = (header: string | string[]) => verifyPlatformAWebhook(body, { 'x-platform-a-signature': header }, SECRET, NOW);
  const good = signedA(body)['x-platform-a-signature'] as string;
  const [v, d] = good.split(',');

  it.each([
    ['no digest', v],
    ['no timestamp', d],
    ['reversed order is fine', `${d},${v}`],
    ['a repeated key', `${v},${d},${d}`],
    ['a timestamp that is not digits', `v=1e12,${d}`],
    ['a negative timestamp', `v=-1,${d}`],
    ['an upper-case digest', `${v},${d.toUpperCase()}`],
    ['a short digest', `${v},${d.slice(0, 40)}`],
    ['no separator', `${v}${d}`],
    ['empty', ''],
  ])('platform_a: %s', (name, header) => {
    expect(a(header)).toEqual(name === 'reversed order is fine' ? { ok: true, signed_at_ms: NOW } : invalid);
  });

  it('platform_a: a header sent twice is refused', () => {
    expect(a([good, good])).toEqual(invalid);
  });

  it.each([
    ['a timestamp in ms instead of seconds (it is signed as given, so it is checked as seconds: far away)', String(NOW), 'stale'],
    ['a timestamp with a sign', '+1764000000', 'invalid'],
    ['a digest that is not hex', null, 'invalid'],
  ])('platform_b: %s', (_name, timestamp, expected) => {
    const headers = timestamp === null ? { ...signedB(body), 'x-signature': 'z'.repeat(64) } : signedB(body, SECRET, Number(timestamp));
    if (timestamp !== null && !/^\d+$/.test(timestamp)) (headers as Record<string, string>)['x-timestamp'] = timestamp;
    expect(verifyPlatformBWebhook(body, headers, SECRET, NOW)).toEqual(expected === 'stale' ? stale : invalid);
  });
});
