import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { ApiKeysStore } from '../auth/api-keys.store.js';
import { openGatewayDatabase } from '../database/gateway-database.js';
import { AuditEventsStore } from './audit-events.store.js';
import { AuditRetention } from './audit-retention.js';
import type { AuditEntry } from './audit.rules.js';

/** The audit log's SQL on a real database: append once per source, filters, append-only, the 365-day sweep. */
describe('audit log (gateway.audit_events)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let store: AuditEventsStore;
  let keyId: string;
  const quiet = createLogger('test');
  quiet.level = 'silent';

  /** n days ago: every entry but the sweep's own old one is well inside its 365 days. */
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
  const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
    account_id: 'acct_1',
    action: 'agent.updated',
    actor: { type: 'api_key', key_id: keyId },
    target_id: 'agt_1',
    changed_fields: ['name'],
    request_id: 'req-1',
    client_address: '203.0.113.7',
    ...overrides,
  });

  beforeAll(async () => {
    db = await createTestDatabase('audit-log');
    dataSource = await openGatewayDatabase(db.url);
    store = new AuditEventsStore(dataSource);
    await dataSource.query(`INSERT INTO gateway.accounts (id, name, plan, agent_limit, voice_platforms) VALUES ('acct_1', 'A', 'standard', 10, '{platform_a}')`);
    keyId = (await new ApiKeysStore(dataSource).create('acct_1', ['audit:read'], 'ops laptop')).id;
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('lists newest first with the key’s name; an entry from the same source is written once', async () => {
    const at = daysAgo(30);
    await store.append([entry({ source_id: 'evt-1', occurred_at: at })]);
    await store.append([entry({ source_id: 'evt-1', occurred_at: at })]);
    await store.append([entry({ action: 'webhook_endpoint.deleted', actor: { type: 'admin_token' }, target_id: 'we_1', changed_fields: null })]);
    const { items, total } = await store.list('acct_1', {}, 10, 0);
    expect(total).toBe(2);
    expect(items.map((i) => [i.action, i.actor, i.target_id, i.changed_fields])).toEqual([
      ['webhook_endpoint.deleted', { type: 'admin_token' }, 'we_1', null],
      ['agent.updated', { type: 'api_key', key_id: keyId, name: 'ops laptop' }, 'agt_1', ['name']],
    ]);
    expect(items[1]).toMatchObject({ request_id: 'req-1', client_address: '203.0.113.7', created_at: at });
    expect(items[0].id).toMatch(/^aud_[0-9a-f]{24}$/);
  });

  it('filters by action, key, target and time, and pages with the filtered total', async () => {
    await store.append([
      entry({ action: 'agent.paused', target_id: 'agt_2', changed_fields: null, occurred_at: daysAgo(20) }),
      entry({ action: 'agent.paused', target_id: 'agt_3', changed_fields: null, actor: { type: 'system' }, occurred_at: daysAgo(19) }),
    ]);
    const actions = async (filters: Parameters<AuditEventsStore['list']>[1]) => (await store.list('acct_1', filters, 10, 0)).items.map((i) => i.target_id);
    expect(await actions({ action: 'agent.paused' })).toEqual(['agt_3', 'agt_2']);
    expect(await actions({ action: 'agent.paused', actorKeyId: keyId })).toEqual(['agt_2']);
    expect(await actions({ targetId: 'agt_1' })).toEqual(['agt_1']);
    expect(await actions({ createdAfter: daysAgo(25), createdBefore: daysAgo(19.5) })).toEqual(['agt_2']);
    expect(await store.list('acct_2', {}, 10, 0)).toEqual({ items: [], total: 0 });
    const page2 = await store.list('acct_1', { action: 'agent.paused' }, 1, 1);
    expect([page2.total, page2.items.map((i) => i.target_id)]).toEqual([2, ['agt_2']]);
  });

  it('the database refuses to change an entry or to delete one younger than 365 days', async () => {
    await expect(dataSource.query(`UPDATE gateway.audit_events SET action = 'agent.created'`)).rejects.toThrow(/append-only/);
    await expect(dataSource.query(`DELETE FROM gateway.audit_events`)).rejects.toThrow(/365 days/);
    expect((await store.list('acct_1', {}, 100, 0)).total).toBe(4);
  });

  it('the sweep removes entries past 365 days and keeps the rest', async () => {
    const old = new Date(Date.now() - 366 * 86_400_000).toISOString();
    const young = new Date(Date.now() - 364 * 86_400_000).toISOString();
    await store.append([entry({ target_id: 'agt_old', occurred_at: old }), entry({ target_id: 'agt_young', occurred_at: young })]);
    const pruned = await new AuditRetention(store, quiet).pruneNow();
    expect(pruned).toBe(1);
    const targets = (await store.list('acct_1', {}, 100, 0)).items.map((i) => i.target_id);
    expect(targets).toContain('agt_young');
    expect(targets).not.toContain('agt_old');
  });
});
