/**
 * Fault family 1: kill -9 of each service in turn, mid-ingest, then a restart. The clients (HTTP, retrying on
 * 503 and connection errors) keep sending through it. What must hold: every event acknowledged with a 202 is
 * stored exactly once and listed; the read model equals its rebuild.
 *   gateway killed: in-flight requests die with the connection; the client retries them (same event ids).
 *   agents-service killed: the gateway's ownership check times out → 503 → retry.
 *   conversations-service killed: its unsettled batch is redelivered after the ack wait; ingest keeps being acked.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FaultCluster, sleep } from './support/cluster.js';
import { report, type ScenarioRow } from './support/check.js';
import { ackedAtLeast, requestInFlight } from './support/ingest.js';
import { runScenario } from './support/scenario.js';

describe('fault: kill -9 of each service mid-ingest', () => {
  let cluster: FaultCluster;
  const rows: ScenarioRow[] = [];

  beforeAll(async () => {
    cluster = await FaultCluster.standard('faultkill');
  }, 120_000);
  afterAll(async () => {
    report(rows);
    await cluster?.close();
  });

  for (const [name, label] of [
    ['gateway', 'kill -9 api-gateway'],
    ['agents', 'kill -9 agents-service'],
    ['conversations', 'kill -9 conversations-service'],
  ] as const) {
    it(`${label}: every acknowledged event stored and listed once`, async () => {
      const { calls: _calls, ...row } = await runScenario(cluster, {
        scenario: label,
        via: 'http',
        fault: async ({ ledger, totalEvents }) => {
          await ackedAtLeast(ledger, Math.floor(totalEvents * 0.25));
          // With a request on the wire: the gateway dies mid-request, a service mid-RPC or mid-batch.
          await requestInFlight(ledger);
          const at = Date.now();
          await cluster.kill9(name);
          // Down for a moment, as a crashed container would be before its restart.
          await sleep(1_000);
          await cluster.restart(name);
          return [{ at, restoredAt: Date.now() }];
        },
      });
      rows.push(row);
      expect({ lost: row.lost, duplicated: row.duplicated, unexpected: row.unexpected, detail_bad: row.detail_bad, rebuild: row.rebuild }).toEqual({
        lost: 0, duplicated: 0, unexpected: 0, detail_bad: 0, rebuild: 'identical',
      });
      expect(row.acked).toBe(row.sent);
    });
  }
});
