import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

const AGENT_FIELDS = [
  'business_hours', 'created_at', 'id', 'language', 'metadata', 'name', 'phone_number', 'pii_redaction', 'platform_sync', 'recording_enabled',
  'retention', 'status', 'store_content', 'system_prompt', 'transcription_enabled', 'transfer_number', 'updated_at', 'voice_id', 'voice_platform', 'welcome_message',
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
    expect(res.body.data.voice_id).toBe('pa-voice-default');
    expect(res.body.data.platform_sync).toEqual({
      state: 'synced',
      platform_agent_id: expect.stringMatching(/^agent_[0-9a-f]{32}$/),
      synced_version: 1,
      last_attempt_at: expect.any(String),
      last_error: null,
      last_reconciled_at: null,
      last_drift: null,
    });
    expect(res.headers.get('location')).toBe(`/v1/agents/${res.body.data.id}`);
    expect(res.headers.get('etag')).toMatch(/^"\d+"$/);
    expect(res.body.meta.request_id).toBe(res.headers.get('x-request-id'));

    const fetched = await account.api.get(res.headers.get('location')!);
    expect(fetched.status).toBe(200);
    expect(fetched.body.data).toEqual(res.body.data);
    expect(fetched.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('buys a phone number on the platform when none is given, bound to the platform agent', async () => {
    const res = await account.api.post('/v1/agents', { name: 'Provisioned', voice_platform: 'platform_a' });
    expect(res.status).toBe(201);
    expect(res.body.data.phone_number).toMatch(/^\+1\d{10}$/);
    expect(res.headers.get('etag')).toBe('"2"');
    const onPlatform = system.platforms.simulators.platformA.phoneNumbers().find((n) => n.phone_number === res.body.data.phone_number);
    expect(onPlatform).toEqual({ phone_number: res.body.data.phone_number, inbound_agent_id: res.body.data.platform_sync.platform_agent_id, purchased: true });
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

  it('GET /v1/agents?per_page=1000 is capped: meta.per_page 100, links carry the effective per_page', async () => {
    const res = await account.api.get('/v1/agents?per_page=1000');
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ page: 1, per_page: 100, total_pages: 1 });
    expect(res.body.data.length).toBe(res.body.meta.total);
    expect(new URL(res.body.links.first).searchParams.get('per_page')).toBe('100');
  });

  it('privacy settings: defaults on create, PATCH replaces pii_redaction whole, precise field errors', async () => {
    const detected = ['phone_number', 'email', 'credit_card', 'ssn', 'iban', 'date_of_birth', 'postal_address', 'ip_address'];
    const created = await account.api.post('/v1/agents', { name: 'Private desk', voice_platform: 'platform_a' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ pii_redaction: { enabled: false, categories: detected }, store_content: true });
    const id = created.body.data.id;

    const patched = await account.api.patch(`/v1/agents/${id}`, { pii_redaction: { enabled: true, categories: ['credit_card', 'caller_number'] }, store_content: false });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ pii_redaction: { enabled: true, categories: ['credit_card', 'caller_number'] }, store_content: false });
    const again = await account.api.patch(`/v1/agents/${id}`, { pii_redaction: { enabled: true } });
    expect(again.body.data.pii_redaction).toEqual({ enabled: true, categories: detected });
    expect((await account.api.get(`/v1/agents/${id}`)).body.data).toMatchObject({ pii_redaction: { enabled: true, categories: detected }, store_content: false });

    for (const [body, field] of [
      [{ pii_redaction: { categories: ['credit_card', 'names'] } }, 'pii_redaction.categories[1]'],
      [{ pii_redaction: { enabled: 'yes' } }, 'pii_redaction.enabled'],
      [{ pii_redaction: null }, 'pii_redaction'],
      [{ store_content: 'no' }, 'store_content'],
    ] as const) {
      const res = await account.api.patch(`/v1/agents/${id}`, body);
      expect([field, res.status, res.body.error?.field]).toEqual([field, 400, field]);
    }
  });

  it('retention: keep by default, PATCH replaces it whole, days 1–3650 with the field named', async () => {
    const created = await account.api.post('/v1/agents', { name: 'Retention desk', voice_platform: 'platform_a', retention: { conversations_days: 365 } });
    expect(created.status).toBe(201);
    expect(created.body.data.retention).toEqual({ conversations_days: 365, recordings_days: null });
    const id = created.body.data.id;
    const keepsAll = await account.api.post('/v1/agents', { name: 'Keeps all', voice_platform: 'platform_a' });
    expect(keepsAll.body.data.retention).toEqual({ conversations_days: null, recordings_days: null });

    const patched = await account.api.patch(`/v1/agents/${id}`, { retention: { recordings_days: 30 } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.retention).toEqual({ conversations_days: null, recordings_days: 30 });
    expect((await account.api.get(`/v1/agents/${id}`)).body.data.retention).toEqual({ conversations_days: null, recordings_days: 30 });

    for (const [body, field] of [
      [{ retention: { conversations_days: 0 } }, 'retention.conversations_days'],
      [{ retention: { conversations_days: 3651 } }, 'retention.conversations_days'],
      [{ retention: { recordings_days: 7.5 } }, 'retention.recordings_days'],
      [{ retention: { recordings_days: '30' } }, 'retention.recordings_days'],
      [{ retention: { days: 30 } }, 'retention.days'],
      [{ retention: null }, 'retention'],
    ] as const) {
      const res = await account.api.patch(`/v1/agents/${id}`, body);
      expect([field, res.status, res.body.error?.field]).toEqual([field, 400, field]);
    }
    const refused = await account.api.post('/v1/agents', { name: 'Too long', voice_platform: 'platform_a', retention: { recordings_days: 4000 } });
    expect([refused.status, refused.body.error?.field]).toEqual([400, 'retention.recordings_days']);
    // The account's agent limit is shared by the whole file.
    for (const agentId of [id, keepsAll.body.data.id]) expect((await account.api.delete(`/v1/agents/${agentId}`)).status).toBe(204);
  });

  it('PATCH honours If-Match: current version → 200 + new ETag; stale or weak → 412; malformed → 400', async () => {
    const created = await account.api.post('/v1/agents', { name: 'Patch me', voice_platform: 'platform_a' });
    const etag = created.headers.get('etag')!;
    const id = created.body.data.id;

    const updated = await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'Hello!' }, { 'if-match': etag });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id, welcome_message: 'Hello!' });
    expect(updated.headers.get('etag')).not.toBe(etag);
    expect(updated.body.data.updated_at >= created.body.data.updated_at).toBe(true);
    const v2 = updated.headers.get('etag')!;

    const stale = await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'Lost update' }, { 'if-match': etag });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toMatchObject({ type: 'conflict_error', code: 'precondition_failed' });

    for (const malformed of ['version-2', '2', '"02"', '"abc"', 'W/2', '"2", *']) {
      const res = await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'x' }, { 'if-match': malformed });
      expect([malformed, res.status]).toEqual([malformed, 400]);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_request', field: 'If-Match' });
    }

    // Strong comparison: a weak tag never matches, not even of the current version.
    const weak = await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'Weak is refused' }, { 'if-match': `W/${v2}` });
    expect(weak.status).toBe(412);
    expect(weak.body.error).toMatchObject({ type: 'conflict_error', code: 'precondition_failed', field: 'If-Match' });

    // A list matches when any listed strong tag is current.
    const staleList = await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'x' }, { 'if-match': `${etag}, W/${v2}, "99"` });
    expect(staleList.status).toBe(412);
    expect(staleList.body.error).toMatchObject({ code: 'precondition_failed', field: 'If-Match' });
    const listed = await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'Listed' }, { 'if-match': `${etag}, ${v2}, "99"` });
    expect(listed.status).toBe(200);
    expect(listed.body.data.welcome_message).toBe('Listed');

    const any = await account.api.patch(`/v1/agents/${id}`, { status: 'paused' }, { 'if-match': '*' });
    expect(any.status).toBe(200);
    expect(any.body.data.status).toBe('paused');

    const current = await account.api.get(`/v1/agents/${id}`);
    expect(current.body.data).toMatchObject({ welcome_message: 'Listed', status: 'paused' });
    expect(current.headers.get('etag')).toBe(any.headers.get('etag'));

    // Preconditions do not hide a missing agent: unknown id → 404 whatever If-Match says.
    for (const header of ['*', '"1"', '"1", "2"', 'W/"1"']) {
      const res = await account.api.patch('/v1/agents/agt_unknown', { welcome_message: 'x' }, { 'if-match': header });
      expect([header, res.status]).toEqual([header, 404]);
    }
  });

  it('DELETE → 204 without a body (stale, weak or malformed If-Match refused first); a list with the current tag deletes; afterwards GET is 404', async () => {
    const created = await account.api.post('/v1/agents', { name: 'Delete me', voice_platform: 'platform_a' });
    const id = created.body.data.id;
    await account.api.patch(`/v1/agents/${id}`, { welcome_message: 'bump' });

    const stale = await account.api.delete(`/v1/agents/${id}`, { 'if-match': created.headers.get('etag')! });
    expect(stale.status).toBe(412);
    const malformed = await account.api.delete(`/v1/agents/${id}`, { 'if-match': '4' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_request', field: 'If-Match' });

    const current = await account.api.get(`/v1/agents/${id}`);
    const currentTag = current.headers.get('etag')!;
    expect((await account.api.delete(`/v1/agents/${id}`, { 'if-match': `W/${currentTag}` })).status).toBe(412);
    expect((await account.api.get(`/v1/agents/${id}`)).status).toBe(200);
    const deleted = await account.api.delete(`/v1/agents/${id}`, { 'if-match': `${created.headers.get('etag')!}, ${currentTag}` });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await account.api.get(`/v1/agents/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
  });
});
