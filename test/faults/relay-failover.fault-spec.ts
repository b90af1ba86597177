/**
 * Fault family 4: kill -9 of the active agents outbox relay. Two agents-service processes share the database;
 * the relay runs in the one holding its session advisory lock (found from pg_locks, not assumed), the other is
 * a hot standby. Agents are updated continuously through the API (both replicas append agent events) while
 * call events are ingested over HTTP; the relay's process is killed mid-stream and NOT restarted: the standby
 * must take the lock and publish the rest. The relay is at-least-once (it may republish what it published but
 * had not checkpointed); the event id as Nats-Msg-Id must make it exactly once in the AGENT_EVENTS stream —
 * checked by reading the whole stream and counting messages per event id against agents.events.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { AGENT_EVENTS_STREAM, namespacedStream } from '@voice/contracts';
import { FaultCluster, sleep, type FaultAccount } from './support/cluster.js';
import { report, type ScenarioRow } from './support/check.js';
import { ackedAtLeast } from './support/ingest.js';
import { runScenario } from './support/scenario.js';

const RETRYABLE = new Set([429, 500, 502, 503, 504]);

/** Every message of AGENT_EVENTS, read from the start: how many times each event id (Nats-Msg-Id) is in it. */
async function agentStreamCounts(natsUrl: string, stream: string): Promise<{ messages: number; perId: Map<string, number> }> {
  const nc = await connect({ servers: natsUrl });
  try {
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    const perId = new Map<string, number>();
    if (info.state.messages === 0) return { messages: 0, perId };
    const consumer = await jetstream(nc).consumers.get(stream);
    const messages = await consumer.consume();
    let seen = 0;
    const timer = setTimeout(() => messages.stop(), 30_000);
    for await (const m of messages) {
      const id = m.headers?.get('Nats-Msg-Id') || m.json<{ id: string }>().id;
      perId.set(id, (perId.get(id) ?? 0) + 1);
      if (++seen >= info.state.messages) break;
    }
    clearTimeout(timer);
    messages.stop();
    return { messages: seen, perId };
  } finally {
    await nc.close();
  }
}

async function streamMessages(natsUrl: string, stream: string): Promise<number> {
  const nc = await connect({ servers: natsUrl });
  try {
    return (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
  } finally {
    await nc.close();
  }
}

describe('fault: kill -9 of the active agents relay (two agents-service replicas)', () => {
  let cluster: FaultCluster;
  const rows: ScenarioRow[] = [];

  beforeAll(async () => {
    cluster = await FaultCluster.create('faultrelay');
    // agents-a first, and only once it holds the relay lock does agents-b start: b is the standby.
    await cluster.start('agents', 'agents-a');
    for (const deadline = Date.now() + 20_000; (await cluster.relayHolder()) !== 'agents-a'; await sleep(100)) {
      if (Date.now() > deadline) throw new Error('agents-a never took the relay lock');
    }
    await cluster.start('conversations');
    await cluster.start('agents', 'agents-b');
    await cluster.start('gateway');
  }, 120_000);
  afterAll(async () => {
    report(rows);
    await cluster?.close();
  });

  it('the standby publishes the rest: each agent event exactly once in AGENT_EVENTS; call events all stored', async () => {
    const stream = namespacedStream(cluster.namespace, AGENT_EVENTS_STREAM);
    const account = await cluster.createAccount(6);
    let updates = 0;
    let updateRetries = 0;
    const UPDATES_PER_AGENT = 60;
    // Agent churn: each agent updated again and again (one agent event per committed PATCH), from both replicas.
    const churn = async ({ account: acc }: { account: FaultAccount }) => {
      await Promise.all(
        acc.agentIds.map(async (agentId) => {
          for (let n = 0; n < UPDATES_PER_AGENT; n += 1) {
            for (const deadline = Date.now() + 120_000; ; ) {
              const res = await acc.api.patch(`/v1/agents/${agentId}`, { metadata: { round: String(n) } }).catch(() => undefined);
              if (res?.status === 200) break;
              if (res && !RETRYABLE.has(res.status)) throw new Error(`PATCH agent: ${res.status} ${res.text}`);
              if (Date.now() > deadline) throw new Error('PATCH agent: no success in 2 minutes');
              updateRetries += 1;
              const retryAfter = Number(res?.headers.get('retry-after'));
              await sleep(retryAfter > 0 ? Math.min(retryAfter * 1000, 5_000) : 200);
            }
            updates += 1;
          }
        }),
      );
    };

    let killed = '';
    let takeoverMs = -1;
    let firstPublishAfterKillMs = -1;
    let inStreamAtKill = 0;
    const { calls: _calls, ...row } = await runScenario(cluster, {
      scenario: 'kill -9 active relay (call events)',
      via: 'http',
      account,
      alongside: churn,
      fault: async ({ ledger, totalEvents }) => {
        await ackedAtLeast(ledger, Math.floor(totalEvents * 0.25));
        for (const deadline = Date.now() + 60_000; updates < (account.agentIds.length * UPDATES_PER_AGENT) / 3; await sleep(20)) {
          if (Date.now() > deadline) throw new Error(`agent churn too slow: ${updates} updates`);
        }
        killed = (await cluster.relayHolder()) ?? '';
        expect(killed).toBe('agents-a');
        const before = await streamMessages(cluster.nats.url, stream);
        inStreamAtKill = before;
        const at = Date.now();
        await cluster.kill9(killed);
        // The standby polls the lock every second (10 × the relay poll interval).
        for (const deadline = Date.now() + 30_000; (await cluster.relayHolder()) !== 'agents-b'; await sleep(50)) {
          if (Date.now() > deadline) throw new Error('the standby never took the relay lock');
        }
        takeoverMs = Date.now() - at;
        for (const deadline = Date.now() + 30_000; (await streamMessages(cluster.nats.url, stream)) <= before; await sleep(50)) {
          if (Date.now() > deadline) throw new Error('nothing published after the takeover');
        }
        firstPublishAfterKillMs = Date.now() - at;
        return [{ at, restoredAt: Date.now() }];
      },
    });

    // Agent events: what PostgreSQL committed (the relay's input; the sync's own stream is never relayed) vs the stream.
    const { rows: committed } = await cluster.db.query<{ event_id: string }>(`SELECT event_id::text FROM agents.events WHERE stream_id NOT LIKE 'agent-sync-%'`);
    const expectedIds = new Set(committed.map((r) => r.event_id));
    let published = await agentStreamCounts(cluster.nats.url, stream);
    for (const deadline = Date.now() + 60_000; [...expectedIds].some((id) => !published.perId.has(id)) && Date.now() < deadline; ) {
      await sleep(500);
      published = await agentStreamCounts(cluster.nats.url, stream);
    }
    const lost = [...expectedIds].filter((id) => !published.perId.has(id)).length;
    const duplicated = [...published.perId.values()].reduce((sum, n) => sum + n - 1, 0);
    const unexpected = [...published.perId.keys()].filter((id) => !expectedIds.has(id)).length;
    // conversations-service's agent directory must end at each agent's last version (it learns only from the stream).
    const { rows: stale } = await cluster.db.query(
      `SELECT count(*)::int AS n FROM (SELECT stream_id, max(stream_version) AS v FROM agents.events WHERE stream_id NOT LIKE 'agent-sync-%' GROUP BY stream_id) e
        JOIN conversations.agents c ON e.stream_id = 'agent-' || c.agent_id WHERE c.version <> e.v`,
    );
    const relayRow: ScenarioRow = {
      scenario: `kill -9 active relay (agent events; ${killed} → agents-b, which published ${published.messages - inStreamAtKill})`,
      via: 'outbox relay',
      sent: expectedIds.size,
      acked: published.messages,
      stored: published.perId.size,
      lost,
      duplicated,
      unexpected,
      listed: '-',
      detail_bad: stale[0].n,
      rebuild: '-',
      recovery_ms: firstPublishAfterKillMs,
      converge_ms: takeoverMs,
      client_retries: `${updateRetries} (PATCH, ${updates} updates)`,
    };
    rows.push(row, relayRow);

    expect({ lost: row.lost, duplicated: row.duplicated, unexpected: row.unexpected, detail_bad: row.detail_bad, rebuild: row.rebuild }).toEqual({
      lost: 0, duplicated: 0, unexpected: 0, detail_bad: 0, rebuild: 'identical',
    });
    expect(row.acked).toBe(row.sent);
    expect({ lost, duplicated, unexpected, stale: stale[0].n }).toEqual({ lost: 0, duplicated: 0, unexpected: 0, stale: 0 });
    expect(updates).toBe(account.agentIds.length * UPDATES_PER_AGENT);
  });
});
