/**
 * The lease replicas share the reconciliation with, against the real PostgreSQL: two processes taking due scopes at
 * the same moment never take the same one, a taken scope is not due again within its interval, and a start makes
 * every scope due.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { AGENTS_SCHEMA, agentsMigrations } from '../database/agents-database.js';
import { ReconcileStore } from './reconcile.store.js';

describe('reconciliation scopes: a lease per account and platform', () => {
  let db: TestDatabase;
  const sources: DataSource[] = [];
  let replicaA: ReconcileStore;
  let replicaB: ReconcileStore;

  beforeAll(async () => {
    db = await createTestDatabase('reconcile-store');
    for (let i = 0; i < 2; i++) sources.push(await openDatabase({ url: db.url, schema: AGENTS_SCHEMA, migrations: agentsMigrations, applicationName: `replica-${i}` }));
    [replicaA, replicaB] = sources.map((source) => new ReconcileStore(source));
    for (let i = 0; i < 8; i++) {
      for (const platform of ['platform_a', 'platform_b']) {
        await sources[0].query(
          `INSERT INTO agents.integrations (id, account_id, platform, base_url, api_key_sealed, webhook_secret_sealed, api_key_hint, webhook_secret_hint, status, created_at, updated_at)
           VALUES ($1, $2, $3, 'http://127.0.0.1:1', 'k', 's', 'k', 's', 'verified', now(), now())`,
          [`int_${i}_${platform}`, `acc_${i}`, platform],
        );
      }
    }
  });
  afterAll(async () => {
    for (const source of sources) await source.destroy();
    await db?.drop();
  });

  const key = (scope: { account_id: string; platform: string }) => `${scope.account_id}/${scope.platform}`;

  it('two replicas taking at once share the 16 due scopes without overlap; none is due again within the interval', async () => {
    // A new integration's scope is due one interval after it appears (its agents were just synced).
    expect(await replicaA.takeDueScopes(10, 60_000)).toEqual([]);
    await replicaA.everyScopeDueNow();
    const [a, b] = await Promise.all([replicaA.takeDueScopes(10, 60_000), replicaB.takeDueScopes(10, 60_000)]);
    const [a2, b2] = await Promise.all([replicaA.takeDueScopes(10, 60_000), replicaB.takeDueScopes(10, 60_000)]);
    const taken = [...a, ...b, ...a2, ...b2].map(key);
    expect(taken).toHaveLength(16);
    expect(new Set(taken).size).toBe(16);
    expect(await replicaA.takeDueScopes(10, 60_000)).toEqual([]);
    expect(await replicaB.takeDueScopes(10, 60_000)).toEqual([]);
  });

  it('a start makes every scope due at once; a failed listing backs its scope off and counts the attempt', async () => {
    await replicaA.everyScopeDueNow();
    const due = await replicaB.takeDueScopes(100, 60_000);
    expect(due).toHaveLength(16);
    await replicaB.retryScope(due[0], 50);
    await new Promise((r) => setTimeout(r, 200));
    expect(await replicaA.takeDueScopes(100, 60_000)).toEqual([{ ...due[0], attempt: 1 }]);
  });

  it('follows the integrations: a removed integration’s scope is dropped', async () => {
    await sources[0].query(`DELETE FROM agents.integrations WHERE account_id = 'acc_0'`);
    await replicaA.everyScopeDueNow();
    const due = (await replicaA.takeDueScopes(100, 60_000)).map(key);
    expect(due).toHaveLength(14);
    expect(due.some((scope) => scope.startsWith('acc_0/'))).toBe(false);
  });
});
