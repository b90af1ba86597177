/**
 * Fault family 2: the NATS server restarted mid-ingest (the suite's own nats-server, same port and store
 * directory, so streams and the durable consumer come back as on a real restart; nobody else's NATS is touched).
 * Half the calls come over HTTP, half straight onto JetStream as a platform ingestor publishes them (Nats-Msg-Id
 * `<account>:<event id>`): both kinds of client see publish timeouts / 503 while it is down and retry. The
 * services must reconnect by themselves (request-reply subscriptions, the pull consumer, the agents relay).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FaultCluster } from './support/cluster.js';
import { report, type ScenarioRow } from './support/check.js';
import { ackedAtLeast } from './support/ingest.js';
import { runScenario } from './support/scenario.js';

describe('fault: NATS server restart mid-ingest', () => {
  let cluster: FaultCluster;
  const rows: ScenarioRow[] = [];

  beforeAll(async () => {
    cluster = await FaultCluster.standard('faultnats');
  }, 120_000);
  afterAll(async () => {
    report(rows);
    await cluster?.close();
  });

  // SIGTERM is an operator's restart (the server flushes its store); SIGKILL a crash of the process — the
  // kernel still holds what it wrote, so JetStream's acknowledged-but-not-fsynced window (field notes) is not
  // at stake here, only its user-space buffering.
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`nats-server ${signal} + restart: every acknowledged event stored and listed once`, async () => {
      const { calls: _calls, ...row } = await runScenario(cluster, {
        scenario: `nats-server ${signal === 'SIGTERM' ? 'restart' : 'kill -9 + restart'}`,
        via: 'both',
        fault: async ({ ledger, totalEvents }) => {
          await ackedAtLeast(ledger, Math.floor(totalEvents * 0.25));
          const at = Date.now();
          await cluster.nats.restart(signal, 1_000);
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
