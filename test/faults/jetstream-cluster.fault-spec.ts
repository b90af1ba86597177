/**
 * Fault family: clustered JetStream. Three nats-server processes clustered on loopback ports, every stream and
 * durable consumer created with JETSTREAM_REPLICAS=3, every app connected to all three servers (NATS_URL lists
 * them). About 20,000 call events are ingested over HTTP while (a) a node that does not lead CALL_EVENTS is
 * killed (SIGKILL) and restarted, and, once it caught up, (b) the CALL_EVENTS leader is killed and restarted
 * 5 s later (the remaining two keep a quorum and elect a new leader meanwhile). Every acknowledged event must be
 * recorded exactly once, and every request answered — a 503 while there is no leader — within the gateway's
 * bounds, never left hanging.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CALL_EVENTS_STREAM, namespacedStream } from '@voice/contracts';
import { FaultCluster, sleep } from './support/cluster.js';
import { report, type FaultWindow, type ScenarioRow } from './support/check.js';
import { ackedAtLeast, Ledger } from './support/ingest.js';
import { NatsCluster } from './support/nats-cluster.js';
import { runScenario } from './support/scenario.js';

/** The gateway's bound on a stream acknowledgement and on a service request here (RPC_TIMEOUT_MS of FaultCluster). */
const GATEWAY_TIMEOUT_MS = 2_000;
/**
 * An ingest request waits for at most the answering check and one acknowledgement wave, each bounded by the
 * gateway's timeout; the rest is slack for a 2-core machine running three servers and three apps. The clients
 * give up on a request after 15 s, which would count as a hang.
 */
const ANSWER_BOUND_MS = 2 * GATEWAY_TIMEOUT_MS + 4_000;

describe('fault: clustered JetStream (3 nodes, R3) losing a follower, then the CALL_EVENTS leader', () => {
  let nats: NatsCluster;
  let cluster: FaultCluster<NatsCluster>;
  let stream: string;
  const rows: ScenarioRow[] = [];

  beforeAll(async () => {
    nats = await NatsCluster.start(3);
    cluster = await FaultCluster.create('faultjscluster', nats, { JETSTREAM_REPLICAS: '3' });
    await cluster.start('agents');
    await cluster.start('conversations');
    await cluster.start('gateway');
    stream = namespacedStream(cluster.namespace, CALL_EVENTS_STREAM);
  }, 180_000);
  afterAll(async () => {
    report(rows);
    await cluster?.close();
    await nats?.close();
  });

  it('creates the stream and the durable consumer on three servers', async () => {
    await nats.waitForReplicasCurrent(stream);
    const info = await nats.streamCluster(stream);
    expect(info?.replicas).toHaveLength(2);
    const consumer = await nats.consumerCluster(stream, 'conversations-service');
    expect(consumer?.replicas).toHaveLength(2);
  });

  it('every acknowledged event recorded exactly once; requests during the election answered 503 in time, none hangs', async () => {
    const ledger = new Ledger();
    const moments: string[] = [];
    const { calls: _calls, ...row } = await runScenario(cluster, {
      scenario: 'JetStream R3: follower kill -9 + restart, then leader kill -9',
      via: 'http',
      calls: 6_000,
      eventsPerSecond: 1_000,
      ledger,
      fault: async ({ ledger: history, totalEvents }) => {
        const windows: FaultWindow[] = [];
        await ackedAtLeast(history, Math.floor(totalEvents * 0.25));
        const leader = await nats.leaderOf(stream);
        const follower = nats.nodes.find((n) => n.name !== leader)!.name;
        let at = Date.now();
        await nats.kill(follower);
        await sleep(1_000);
        await nats.boot(follower);
        await nats.waitForReplicasCurrent(stream);
        windows.push({ at, restoredAt: Date.now() });
        moments.push(`follower ${follower} (leader ${leader}) killed, back and caught up after ${Date.now() - at} ms`);

        await ackedAtLeast(history, Math.floor(totalEvents * 0.55));
        const oldLeader = await nats.leaderOf(stream);
        at = Date.now();
        await nats.kill(oldLeader);
        const newLeader = await nats.leaderOf(stream);
        const electedAt = Date.now();
        windows.push({ at, restoredAt: electedAt });
        moments.push(`leader ${oldLeader} killed, ${newLeader} leads after ${electedAt - at} ms`);
        await sleep(Math.max(0, 5_000 - (Date.now() - at)));
        await nats.boot(oldLeader);
        await nats.waitForReplicasCurrent(stream);
        moments.push(`${oldLeader} back and caught up ${Date.now() - at} ms after its kill`);
        return windows;
      },
    });
    rows.push(row);
    const timeouts = ledger.failures.get('timeout') ?? 0;
    console.log(
      [
        ...moments,
        `sent ${row.sent} / acknowledged ${row.acked} / recorded ${row.stored} / lost ${row.lost} / duplicated ${row.duplicated}`,
        `client failures: ${ledger.failureSummary()}; slowest answer ${ledger.slowestAnswerMs} ms (bound ${ANSWER_BOUND_MS} ms); hung requests ${timeouts}`,
      ].join('\n'),
    );
    expect({ lost: row.lost, duplicated: row.duplicated, unexpected: row.unexpected, detail_bad: row.detail_bad, rebuild: row.rebuild }).toEqual({
      lost: 0, duplicated: 0, unexpected: 0, detail_bad: 0, rebuild: 'identical',
    });
    expect(row.acked).toBe(row.sent);
    expect({ timeouts, slowestWithinBound: ledger.slowestAnswerMs <= ANSWER_BOUND_MS }).toEqual({ timeouts: 0, slowestWithinBound: true });
  });
});
