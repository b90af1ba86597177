/**
 * Fault family 3: every PostgreSQL connection of the deployment terminated mid-ingest, three times
 * (`pg_terminate_backend` on each backend of the test database, as a DBA, a failover or a pooler restart
 * would). Every service loses its pooled connections at once, including ones inside a transaction (a batch being
 * recorded, the relay's lock session, the gateway's key lookup): those transactions roll back, the services must
 * reconnect, the consumer must redeliver what it had not committed, and clients see 503 meanwhile and retry.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FaultCluster, sleep } from './support/cluster.js';
import { report, type FaultWindow, type ScenarioRow } from './support/check.js';
import { ackedAtLeast } from './support/ingest.js';
import { runScenario } from './support/scenario.js';

describe('fault: PostgreSQL connections terminated mid-ingest', () => {
  let cluster: FaultCluster;
  const rows: ScenarioRow[] = [];

  beforeAll(async () => {
    cluster = await FaultCluster.standard('faultpg');
  }, 120_000);
  afterAll(async () => {
    report(rows);
    await cluster?.close();
  });

  it('pg_terminate_backend ×3: every acknowledged event stored and listed once', async () => {
    const terminated: number[] = [];
    const { calls: _calls, ...row } = await runScenario(cluster, {
      scenario: 'pg_terminate_backend ×3',
      via: 'both',
      fault: async ({ ledger, totalEvents }) => {
        const windows: FaultWindow[] = [];
        for (const share of [0.2, 0.45, 0.7]) {
          await ackedAtLeast(ledger, Math.floor(totalEvents * share));
          const at = Date.now();
          terminated.push(await cluster.terminateDatabaseConnections());
          windows.push({ at, restoredAt: at });
          await sleep(300);
        }
        return windows;
      },
    });
    rows.push({ ...row, scenario: `${row.scenario} (${terminated.join('+')} backends)` });
    // Each termination must have hit the services' pools, or the scenario tested nothing.
    for (const n of terminated) expect(n).toBeGreaterThanOrEqual(3);
    expect({ lost: row.lost, duplicated: row.duplicated, unexpected: row.unexpected, detail_bad: row.detail_bad, rebuild: row.rebuild }).toEqual({
      lost: 0, duplicated: 0, unexpected: 0, detail_bad: 0, rebuild: 'identical',
    });
    expect(row.acked).toBe(row.sent);
  });
});
