import { describe, expect, it } from '@jest/globals';
import { OUTBOUND_EVENT_TYPES } from '@voice/contracts';
import { checkEndpointUrl, endpointQuotaProblem, formatSigningSecret, parseEndpointBody, parseEndpointListQuery, signingSecrets } from './webhook-endpoint.rules.js';

const strict = { allowPrivate: false };
const relaxed = { allowPrivate: true };
const refusedField = (result: unknown) => (result as { problem?: { field?: string; code: string } }).problem;

describe('webhook endpoint URLs', () => {
  it('takes an absolute https URL', () => {
    expect(checkEndpointUrl('https://example.com/hooks', strict)).toEqual({ url: 'https://example.com/hooks' });
  });

  it.each([
    ['http://example.com/hooks'], ['ftp://example.com/'], ['not a url'], ['https://user:pw@example.com/'], ['https://127.0.0.1/'], ['https://10.0.0.8/'],
    ['https://localhost/'], [`https://example.com/${'a'.repeat(2_050)}`], [''], [42],
  ])('refuses %s without ALLOW_PRIVATE_WEBHOOK_URLS', (url) => {
    expect(refusedField(checkEndpointUrl(url, strict))).toMatchObject({ code: 'invalid_parameter', field: 'url' });
  });

  it('takes http, loopback and private addresses with ALLOW_PRIVATE_WEBHOOK_URLS', () => {
    expect(checkEndpointUrl('http://127.0.0.1:8080/in', relaxed)).toEqual({ url: 'http://127.0.0.1:8080/in' });
    expect(checkEndpointUrl('http://10.0.0.8/in', relaxed)).toEqual({ url: 'http://10.0.0.8/in' });
  });

  it.each(['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/', 'http://0.0.0.0/'])('always refuses %s', (url) => {
    expect(refusedField(checkEndpointUrl(url, relaxed))).toMatchObject({ code: 'invalid_parameter', field: 'url' });
  });
});

describe('webhook endpoint bodies', () => {
  it('a create needs url; the rest defaults (all events, all agents, enabled)', () => {
    expect(refusedField(parseEndpointBody({}, strict, 'create'))).toMatchObject({ code: 'missing_required_field', field: 'url' });
    expect(parseEndpointBody({ url: 'https://example.com/' }, strict, 'create')).toEqual({ fields: { url: 'https://example.com/' } });
  });

  it('an unknown event type is refused with the valid values', () => {
    const result = parseEndpointBody({ url: 'https://example.com/', event_types: ['call.ended'] }, strict, 'create');
    expect(refusedField(result)).toEqual(expect.objectContaining({ code: 'invalid_parameter', field: 'event_types', valid_values: [...OUTBOUND_EVENT_TYPES] }));
  });

  it('refuses unknown fields, wrong types and empty updates, each naming its field', () => {
    expect(refusedField(parseEndpointBody({ url: 'https://example.com/', secret: 'x' }, strict, 'create'))).toMatchObject({ field: 'secret' });
    expect(refusedField(parseEndpointBody({ enabled: 'yes' }, strict, 'update'))).toMatchObject({ field: 'enabled' });
    expect(refusedField(parseEndpointBody({ agent_ids: [] }, strict, 'update'))).toMatchObject({ field: 'agent_ids' });
    expect(refusedField(parseEndpointBody({}, strict, 'update'))).toMatchObject({ code: 'invalid_request' });
    expect(refusedField(parseEndpointBody([], strict, 'update'))).toMatchObject({ code: 'invalid_request' });
  });

  it('a PATCH may reset the filters to all with null', () => {
    expect(parseEndpointBody({ event_types: null, agent_ids: null, enabled: false }, strict, 'update')).toEqual({ fields: { event_types: null, agent_ids: null, enabled: false } });
  });
});

describe('endpoint limits and secrets', () => {
  it('refuses the 21st endpoint with limit and current', () => {
    expect(endpointQuotaProblem(19)).toBeUndefined();
    expect(endpointQuotaProblem(20)).toMatchObject({ code: 'quota_exceeded', limit: 20, current: 20 });
  });

  it('formats secrets as Standard Webhooks does', () => {
    expect(formatSigningSecret(Buffer.alloc(32, 1))).toBe(`whsec_${Buffer.alloc(32, 1).toString('base64')}`);
  });

  it('pages like every list and refuses other parameters', () => {
    expect(parseEndpointListQuery({})).toEqual({ page: 1, per_page: 25 });
    expect(parseEndpointListQuery({ page: '2', per_page: '500' })).toEqual({ page: 2, per_page: 100 });
    expect(parseEndpointListQuery({ status: 'x' })).toMatchObject({ problem: { field: 'status' } });
    expect(parseEndpointListQuery({ page: '0' })).toMatchObject({ problem: { field: 'page' } });
  });
});

describe('signing secrets during a rotation', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  it('signs with the new and the previous secret until the overlap ends, then with the new one only', () => {
    expect(signingSecrets('new', { secret: 'old', expiresAt: new Date('2026-01-02T12:00:00Z') }, now)).toEqual(['new', 'old']);
    expect(signingSecrets('new', { secret: 'old', expiresAt: now }, now)).toEqual(['new']);
    expect(signingSecrets('new', undefined, now)).toEqual(['new']);
  });
});
