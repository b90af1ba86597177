/**
 * conversations-service killed with SIGKILL mid-ingest: the call events it had taken from JetStream but not yet
 * recorded are redelivered to the restarted process within the ack wait (5 s), not after 30 s, and every event
 * acknowledged by JetStream ends up recorded exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { agentEventSubject, callEventSubject, namespacedSubject, type AgentIntegrationEvent, type CallEvent } from '@voice/contracts';
import { createTestDatabase, deleteNamespaceStreams, randomNamespace, startBuiltProcess, testNatsUrl, type TestDatabase } from '@voice/testing';
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { callEvents } from '../testing/harness.js';

const main = resolve(fileURLToPath(import.meta.url), '../../../dist/main.js');

describe('conversations-service killed (SIGKILL) mid-ingest', () => {
  const namespace = randomNamespace();
  let db: TestDatabase;
  let pool: pg.Pool;
  let nc: NatsConnection;
  let js: JetStreamClient;
  const processes: ChildProcess[] = [];

  async function startProcess(): Promise<ChildProcess> {
    const child = await startBuiltProcess(main, { DATABASE_URL: db.url, NATS_URL: testNatsUrl(), NATS_NAMESPACE: namespace }, 'conversations-service ready');
    processes.push(child);
    return child;
  }
  const recorded = async () => Number((await pool.query('SELECT count(*)::int AS n FROM conversations.events')).rows[0].n);

  beforeAll(async () => {
    db = await createTestDatabase('convcrash');
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    nc = await connect({ servers: testNatsUrl() });
    js = jetstream(nc);
  });
  afterAll(async () => {
    for (const child of processes) if (child.exitCode === null) child.kill('SIGKILL');
    await nc?.close();
    await pool?.end();
    await deleteNamespaceStreams(namespace).catch(() => undefined);
    await db?.drop();
  });

  it('records every acknowledged event once, the dead process’s in-flight ones within the ack wait of the restart', async () => {
    const first = await startProcess();
    const agent: AgentIntegrationEvent = {
      id: 'agent-crash-1', type: 'AgentCreated', version: 1, occurred_at: new Date().toISOString(),
      agent: { agent_id: 'agt_crash', account_id: 'acc_crash', name: 'Crash', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
    };
    await js.publish(namespacedSubject(namespace, agentEventSubject(agent.type)), JSON.stringify(agent), { msgID: agent.id });
    for (const deadline = Date.now() + 15_000; ; ) {
      const { rows } = await pool.query(`SELECT 1 FROM conversations.agents WHERE agent_id = 'agt_crash'`);
      if (rows.length > 0) break;
      if (Date.now() > deadline) throw new Error('agent never known');
      await new Promise((r) => setTimeout(r, 50));
    }

    const events: CallEvent[] = [];
    for (let i = 0; i < 1_500; i += 1) {
      const call = callEvents(`crash-${i}`, 'agt_crash');
      events.push(call.started(), call.ended(30));
    }
    // Acknowledged by JetStream (what a 202 means), in parallel chunks. The process is killed as soon as it has recorded
    // anything, while events are still arriving: on a fast machine it would otherwise have recorded them all first.
    const publishing = (async () => {
      for (let i = 0; i < events.length; i += 250) {
        await Promise.all(events.slice(i, i + 250).map((e) => js.publish(namespacedSubject(namespace, callEventSubject(e.type)), JSON.stringify(e), { msgID: e.id })));
      }
    })();
    for (const deadline = Date.now() + 20_000; (await recorded()) === 0; ) {
      if (Date.now() > deadline) throw new Error('nothing recorded');
      await new Promise((r) => setTimeout(r, 5));
    }
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    await publishing;
    const beforeRestart = await recorded();
    expect(beforeRestart).toBeLessThan(events.length);

    await startProcess();
    const restartedAt = Date.now();
    for (const deadline = Date.now() + 40_000; (await recorded()) < events.length && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    const allRecordedAfterMs = Date.now() - restartedAt;
    expect(await recorded()).toBe(events.length);
    // The dead process's unsettled batch comes back after the ack wait (5 s); 30 s before this change.
    expect(allRecordedAfterMs).toBeLessThan(12_000);
    const { rows } = await pool.query(`SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS distinct_ids FROM conversations.events`);
    expect(rows[0]).toEqual({ n: events.length, distinct_ids: events.length });
    process.stdout.write(`conversations-service SIGKILL mid-ingest: ${beforeRestart}/${events.length} recorded before, all recorded ${allRecordedAfterMs} ms after the restart\n`);
  }, 90_000);
});
