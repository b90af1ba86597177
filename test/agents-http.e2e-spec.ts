import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

const AGENT_FIELDS = [
  'business_hours', 'created_at', 'id', 'language', 'metadata', 'name', 'phone_number', 'recording_enabled', 'status',
  'system_prompt', 'transcription_enabled', 'transfer_number', 'updated_at', 'voice_id', 'voice_platform', 'welcome_message',
];

/**
 * The agent API as an HTTP client meets it: status codes, envelopes and the
 * HTTP-level headers (Location, ETag, If-Match). The exhaustive validation and
 * invariant rules are agents-service's own tests.
 */
describe('agents over HTTP', () => {
  let system: RunningSystem;
  let account: TestAccount;

  beforeAll(async () => {
    system = await startSystem();
    account = await system.createAccount({ agent_limit: 6, voice_platforms: ['platform_a'] });
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  });

  it('POST /v1/agents → 201 with every 2.1 field, status active, Location and ETag', async () => {
    const res = await account.api.post('/v1/agents', {
      name: 'Front desk',
      voice_platform: 'platform_a',
      phone_number: '+14155550123',
      business_hours: { timezone: 'Europe/Paris', schedule: [{ day: 'monday', open: '09:00', close: '17:00' }] },
      metadata: { team: 'support' },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data', 'meta']);
    expect(Object.keys(res.body.data).sort()).toEqual(AGENT_FIELDS);
    expect(res.body.data).toMatchObject({
      name: 'Front desk',
      voice_platform: 'platform_a',
      phone_number: '+14155550123',
      language: 'en',
      recording_enabled: true,
      transcription_enabled: true,
      status: 'active',
      metadata: { team: 'support' },
    });
    expect(res.body.data.voice_id).toEqual(expect.any(String));
    expect(res.headers.get('location')).toBe(`/v1/agents/${res.body.data.id}`);
    expect(res.headers.get('etag')).toMatch(/^"\d+"$/);
    expect(res.body.meta.request_id).toBe(res.headers.get('x-request-id'));

    const fetched = await account.api.get(res.headers.get('location')!);
    expect(fetched.status).toBe(200);
    expect(fetched.body.data).toEqual(res.body.data);
    expect(fetched.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('provisions a phone number when none is given', async () => {
    const res = await account.api.post('/v1/agents', { name: 'Provisioned', voice_platform: 'platform_a' });
    expect(res.status).toBe(201);
    expect(res.body.data.phone_number).toMatch(/^\+[1-9]\d{1,14}$/);
  });

  it.each([
    [{ voice_platform: 'platform_a' }, 400, 'invalid_request', 'missing_required_field', 'name'],
    [{ name: 'A', voice_platform: 'platform_q' }, 400, 'invalid_request', 'invalid_parameter', 'voice_platform'],
    [{ name: 42, voice_platform: 'platform_a' }, 400, 'invalid_request', 'invalid_parameter', 'name'],
    [{ name: 'A', voice_platform: 'platform_a', id: 'mine' }, 400, 'invalid_request', 'invalid_parameter', 'id'],
    [{ name: 'A', voice_platform: 'platform_a', colour: 'red' }, 400, 'invalid_request', 'invalid_parameter', 'colour'],
    [{ name: 'A', voice_platform: 'platform_a', business_hours: { timezone: 'UTC', schedule: [{ day: 'monday', open: '25:00', close: '26:00' }] } },
      400, 'invalid_request', 'invalid_parameter', 'business_hours.schedule[0].open'],
    [{ name: 'A', voice_platform: 'platform_b' }, 422, 'validation_error', 'platform_not_configured', 'voice_platform'],
  ])('POST %j → %i %s/%s on %s', async (body, status, type, code, field) => {
    const res = await account.api.post('/v1/agents', body);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ type, code, field, request_id: res.headers.get('x-request-id') });
  });

  it('lists valid_values for an unknown voice_platform', async () => {
    const res = await account.api.post('/v1/agents', { name: 'A', voice_platform: 'platform_q' });
    expect(res.body.error.valid_values).toEqual(['platform_a', 'platform_b']);
  });

  it('duplicate name → 422 duplicate_name; quota → 403 quota_exceeded with limit and current', async () => {
    const first = await account.api.post('/v1/agents', { name: 'Sales line', voice_platform: 'platform_a' });
    expect(first.status).toBe(201);
    const dup = await account.api.post('/v1/agents', { name: '  sales LINE ', voice_platform: 'platform_a' });
    expect(dup.status).toBe(422);
    expect(dup.body.error).toMatchObject({ type: 'validation_error', code: 'duplicate_name', field: 'name' });

    const small = await system.createAccount({ agent_limit: 1, voice_platforms: ['platform_a'] });
    expect((await small.api.post('/v1/agents', { name: 'Only one', voice_platform: 'platform_a' })).status).toBe(201);
    const over = await small.api.post('/v1/agents', { name: 'One too many', voice_platform: 'platform_a' });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ type: 'permission_error', code: 'quota_exceeded', limit: 1, current: 1 });
  });

  it('GET /v1/agents is a list envelope with absolute links that keep the filters', async () => {
    const res = await account.api.get('/v1/agents?per_page=1&status=active');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'links', 'meta']);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.meta).toMatchObject({ page: 1, per_page: 1, request_id: res.headers.get('x-request-id') });
    expect(res.body.meta.total).toBeGreaterThanOrEqual(3);
    expect(res.body.meta.total_pages).toBe(res.body.meta.total);
    expect(res.body.links.prev).toBeNull();
    const next = new URL(res.body.links.next);
    expect(`${next.origin}${next.pathname}`).toBe(`${system.baseUrl}/v1/agents`);
    expect(Object.fromEntries(next.searchParams)).toEqual({ per_page: '1', status: 'active', page: '2' });
    expect(new URL(res.body.links.last).searchParams.get('page')).toBe(String(res.body.meta.total_pages));

    const followed = await account.api.get(res.body.links.next.slice(system.baseUrl.length));
    expect(followed.body.meta.page).toBe(2);
    expect(followed.body.data[0].id).not.toBe(res.body.data[0].id);
  });

  it('PATCH honours If-Match: current version → 200 + new ETag; stale or malformed → 412', async () => {
    const created = await account.api.post('/v1/agents', { name: 'Patch me', voice_platform: 'platform_a' });
    const etag = created.headers.get('etag')!;
    const id = created.body.data.id;

    const updated = await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'Hello!' }, { 'if-match': etag });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id, welcome_message: 'Hello!' });
    expect(updated.headers.get('etag')).not.toBe(etag);
    expect(updated.body.data.updated_at >= created.body.data.updated_at).toBe(true);

    const stale = await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'Lost update' }, { 'if-match': etag });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toMatchObject({ type: 'conflict_error', code: 'precondition_failed' });

    const malformed = await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'x' }, { 'if-match': 'version-2' });
    expect(malformed.status).toBe(412);
    expect(malformed.body.error).toMatchObject({ code: 'precondition_failed', field: 'If-Match' });

    const weak = await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'Weak is fine' }, { 'if-match': `W/${updated.headers.get('etag')}` });
    expect(weak.status).toBe(200);
    const any = await account.api.patch(`/v1/agents/${id}`, { status: 'paused' }, { 'if-match': '*' });
    expect(any.status).toBe(200);
    expect(any.body.data.status).toBe('paused');

    const current = await account.api.get(`/v1/agents/${id}`);
    expect(current.body.data.welcome_message).toBe('Weak is fine');
  });

  it('DELETE → 204 without a body (stale If-Match refused first); afterwards GET is 404', async () => {
    const created = await account.api.post('/v1/agents', { name: 'Delete me', voice_platform: 'platform_a' });
    const id = created.body.data.id;
    await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'bump' });

    const stale = await account.api.delete(`/v1/agents/${id}`, { 'if-match': created.headers.get('etag')! });
    expect(stale.status).toBe(412);

    const current = await account.api.get(`/v1/agents/${id}`);
    const deleted = await account.api.delete(`/v1/agents/${id}`, { 'if-match': current.headers.get('etag')! });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await account.api.get(`/v1/agents/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
  });
});
