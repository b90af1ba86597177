import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { AccountsStore } from '../accounts/accounts.store.js';
import { openGatewayDatabase } from '../database/gateway-database.js';
import { ApiKeysStore } from './api-keys.store.js';
import { SCOPES } from './scopes.js';

/** The API keys' list SQL on a real database. */
describe('API keys list (gateway.api_keys)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let keys: ApiKeysStore;
  let accounts: AccountsStore;

  beforeAll(async () => {
    db = await createTestDatabase('api-keys');
    dataSource = await openGatewayDatabase(db.url);
    keys = new ApiKeysStore(dataSource);
    accounts = new AccountsStore(dataSource, keys);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('a page and its total come from one snapshot, while keys are being created', async () => {
    const { id: accountId } = await accounts.create({ name: 'Busy', plan: 'test', agent_limit: 1 });
    let creating = true;
    const creator = (async () => {
      while (creating) await keys.create(accountId, [...SCOPES], null);
    })();
    try {
      for (let i = 0; i < 60; i++) {
        const { items, total } = await keys.list(accountId, 500, 0);
        expect(items).toHaveLength(total);
      }
    } finally {
      creating = false;
      await creator;
    }
  });

  it('pages in creation order, and a page past the end is empty with the total still given', async () => {
    const { id: accountId } = await accounts.create({ name: 'Paged', plan: 'test', agent_limit: 1 });
    for (let i = 0; i < 4; i++) await keys.create(accountId, ['agents:read'], `key ${i}`);
    const all = await keys.list(accountId, 10, 0);
    expect(all.total).toBe(5);
    expect(all.items.map((k) => k.name)).toEqual(['bootstrap', 'key 0', 'key 1', 'key 2', 'key 3']);
    expect((await keys.list(accountId, 2, 2)).items.map((k) => k.name)).toEqual(['key 1', 'key 2']);
    expect(await keys.list(accountId, 2, 10)).toEqual({ items: [], total: 5 });
  });
});
