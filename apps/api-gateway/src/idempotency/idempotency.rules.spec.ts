import { describe, expect, it } from '@jest/globals';
import {
  canonicalJson,
  IDEMPOTENCY_WINDOW_MS,
  idempotencyVerdict,
  isFinalAnswer,
  parseIdempotencyKey,
  replayedHeaders,
  requestFingerprint,
  STALE_CLAIM_MS,
  type StoredKey,
} from './idempotency.rules.js';

describe('parseIdempotencyKey', () => {
  it('is absent without the header', () => {
    expect(parseIdempotencyKey(undefined)).toEqual({ kind: 'absent' });
  });

  it('accepts 1 to 255 printable ASCII characters, spaces and punctuation included', () => {
    expect(parseIdempotencyKey('a')).toEqual({ kind: 'key', key: 'a' });
    expect(parseIdempotencyKey('x'.repeat(255))).toEqual({ kind: 'key', key: 'x'.repeat(255) });
    expect(parseIdempotencyKey('order 42/retry:#1 ~')).toEqual({ kind: 'key', key: 'order 42/retry:#1 ~' });
    expect(parseIdempotencyKey('3f2a9c1e-7b1d-4a8e-9c3f-1d2e3f4a5b6c').kind).toBe('key');
  });

  it('refuses an empty value, more than 255 characters, control characters and non-ASCII', () => {
    for (const value of ['', 'x'.repeat(256), 'a\tb', 'a\u007fb', 'clé', 'key\u0000']) {
      expect(parseIdempotencyKey(value)).toEqual({ kind: 'malformed' });
    }
  });
});

describe('requestFingerprint', () => {
  const base = { method: 'POST', path: '/v1/agents', body: { name: 'Desk', metadata: { a: 1, b: [1, { y: 2, x: 1 }] } } };

  it('ignores key order and spacing: the body is compared as JSON', () => {
    const reordered = { ...base, body: { metadata: { b: [1, { x: 1, y: 2 }], a: 1 }, name: 'Desk' } };
    expect(requestFingerprint(reordered)).toBe(requestFingerprint(base));
    expect(canonicalJson({ b: 1, a: { d: null, c: 'x' } })).toBe('{"a":{"c":"x","d":null},"b":1}');
  });

  it('differs for another body, path or method', () => {
    const fp = requestFingerprint(base);
    expect(requestFingerprint({ ...base, body: { ...base.body, name: 'Desk 2' } })).not.toBe(fp);
    expect(requestFingerprint({ ...base, path: '/v1/api-keys' })).not.toBe(fp);
    expect(requestFingerprint({ ...base, method: 'PUT' })).not.toBe(fp);
    // Array order is meaning, not formatting.
    expect(requestFingerprint({ ...base, body: { ...base.body, metadata: { a: 1, b: [{ y: 2, x: 1 }, 1] } } })).not.toBe(fp);
  });

  it('treats an absent body as null, and method case as irrelevant', () => {
    expect(requestFingerprint({ method: 'put', path: '/p', body: undefined })).toBe(requestFingerprint({ method: 'PUT', path: '/p', body: null }));
  });
});

describe('idempotencyVerdict', () => {
  const now = new Date('2026-01-02T12:00:00Z');
  const stored = (over: Partial<StoredKey> = {}): StoredKey => ({
    fingerprint: 'fp',
    state: 'done',
    claimedAt: new Date(now.getTime() - 1_000),
    expiresAt: new Date(now.getTime() - 1_000 + IDEMPOTENCY_WINDOW_MS),
    ...over,
  });

  it('claims a key never seen, or one whose 24 hours are over', () => {
    expect(idempotencyVerdict(undefined, 'fp', now)).toBe('claim');
    expect(idempotencyVerdict(stored({ expiresAt: now }), 'other', now)).toBe('claim');
    expect(idempotencyVerdict(stored({ state: 'running', expiresAt: new Date(now.getTime() - 1) }), 'fp', now)).toBe('claim');
  });

  it('replays a finished request with the same fingerprint', () => {
    expect(idempotencyVerdict(stored(), 'fp', now)).toBe('replay');
  });

  it('calls another fingerprint a reuse, whether the first request finished or not', () => {
    expect(idempotencyVerdict(stored(), 'other', now)).toBe('reused');
    expect(idempotencyVerdict(stored({ state: 'running' }), 'other', now)).toBe('reused');
  });

  it('answers in_use while the same request runs, and lets a stale claim be taken over', () => {
    expect(idempotencyVerdict(stored({ state: 'running' }), 'fp', now)).toBe('in_use');
    const atBound = new Date(now.getTime() - STALE_CLAIM_MS);
    expect(idempotencyVerdict(stored({ state: 'running', claimedAt: atBound }), 'fp', now)).toBe('in_use');
    const beyond = new Date(now.getTime() - STALE_CLAIM_MS - 1);
    expect(idempotencyVerdict(stored({ state: 'running', claimedAt: beyond }), 'fp', now)).toBe('take_over');
  });
});

describe('isFinalAnswer', () => {
  it('keeps 2xx and 4xx, never 5xx', () => {
    for (const status of [200, 201, 202, 204, 400, 404, 409, 412, 422, 429]) expect(isFinalAnswer(status)).toBe(true);
    for (const status of [500, 502, 503, 504]) expect(isFinalAnswer(status)).toBe(false);
  });
});

describe('replayedHeaders', () => {
  it('keeps Location and ETag, under their usual names, and nothing else', () => {
    expect(replayedHeaders({ location: '/v1/agents/agt_1', etag: '"1"', 'x-request-id': 'r', 'cache-control': 'no-store', 'content-length': 12 })).toEqual({
      Location: '/v1/agents/agt_1',
      ETag: '"1"',
    });
  });
});
