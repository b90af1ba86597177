import { describe, expect, it } from '@jest/globals';
import { OutboundRequestFailed } from '@voice/service-kit';
import { failureForStatus, fieldMentioned, parseRetryAfter, PlatformCallFailed } from './platform-call-failed.js';
import { failureForTransport } from './platform-http.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');

  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Mon, 31 Dec 2029 23:00:00 GMT', now)).toBe(0);
  });

  it('gives nothing for absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });
});

describe('failureForStatus', () => {
  it('carries Retry-After on 429 and 503 only', () => {
    expect(failureForStatus({ status: 503, message: '', retryAfterHeader: '4' })).toMatchObject({ kind: 'transient', retryAfterMs: 4000 });
    expect(failureForStatus({ status: 500, message: '', retryAfterHeader: '4' })).not.toHaveProperty('retryAfterMs');
  });

  it('makes an error that says its platform and whether to retry', () => {
    const error = new PlatformCallFailed('platform_b', failureForStatus({ status: 429, message: 'Too Many Requests', retryAfterHeader: '1' }));
    expect(error).toMatchObject({ kind: 'transient', retryAfterMs: 1000, status: 429, retryable: true, platform: 'platform_b' });
    expect(error.message).toBe('platform_b: the platform answered 429: Too Many Requests');
    expect(new PlatformCallFailed('platform_a', failureForStatus({ status: 401, message: '' })).retryable).toBe(false);
  });
});

describe('failureForTransport', () => {
  it.each([
    ['forbidden_address', 'base_url_refused'],
    ['invalid_url', 'base_url_refused'],
    ['redirect', 'base_url_refused'],
    ['timeout', 'transient'],
    ['network', 'transient'],
    ['unresolvable', 'transient'],
    ['response_too_large', 'transient'],
  ] as const)('%s → %s', (outbound, kind) => {
    const failure = failureForTransport(new OutboundRequestFailed(outbound, 'x'));
    expect(failure.kind).toBe(kind);
    if (kind === 'base_url_refused') expect(failure.field).toBe('base_url');
  });
});

describe('fieldMentioned', () => {
  const paths = [['voice', 'voice_id'], ['name', 'name']] as const;

  it('takes the earliest path mentioned, as a whole word', () => {
    expect(fieldMentioned('name must be a string; voice must be an object', paths)).toBe('name');
    expect(fieldMentioned('voice.voiceId must be a known voice', paths)).toBe('voice_id');
    expect(fieldMentioned('agent_name is too long', paths)).toBeUndefined();
    expect(fieldMentioned('', paths)).toBeUndefined();
  });
});
