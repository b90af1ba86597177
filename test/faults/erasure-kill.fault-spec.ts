/**
 * An erasure request under kill -9 of the process working on it: 5,000 conversations of one caller and 500 of
 * another are recorded through CALL_EVENTS by the built conversations-service; an erasure of the first caller is
 * created over the bus and, once its first batches are committed (and before its last), the process is killed with
 * SIGKILL and restarted a second later. What must hold: the request completes (taken over once the dead process's
 * lease ran out), every conversation of the caller is gone from every table with one tombstone each and nothing of
 * the other caller is touched, the counts and totals agree with a rebuild, and a redelivery of the erased calls'
 * events after the restart brings none back.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream } from '@nats-io/jetstream';
import {
  agentEventSubject, callEventSubject, DataRequestsRpc, namespacedSubject, type AgentIntegrationEvent, type DataRequestView,
} from '@voice/contracts';
import { NamespacedNatsClient } from '@voice/service-kit';
import type { ChildProcess } from 'node:child_process';
import { firstValueFrom, timeout } from 'rxjs';
import { rebuildConversationsProjection } from '../../apps/conversations-service/src/rebuild-projection/rebuild-projection.js';
import { testNatsUrl } from '../support/nats.js';
import { OutboundFixture } from './support/outbound-webhooks.js';

const CALLER_CALLS = 5_000;
const OTHER_CALLS = 500;
const ACCOUNT = 'acct_faulterasure00000001';
const AGENT = 'agt_faulterasureagent0001';
const CALLER = '+14155550142';
const OTHER = '+14155550977';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('fault: kill -9 of conversations-service in the middle of an erasure', () => {
  let fixture: OutboundFixture;
  let conversations: ChildProcess | undefined;
  let client: NamespacedNatsClient;
  // A short lease, so the restarted process takes the request over within seconds.
  const startConversations = async () => (conversations = await fixture.startService('conversations-service', { DATA_REQUEST_LEASE_MS: '2000' }));
  const count = async (sql: string, params: unknown[] = []) => (await fixture.db.query(sql, params)).rows[0].n as number;
  const callStarted = (i: number, caller: string) => {
    const at = new Date(Date.parse('2025-03-01T10:00:00.000Z') + i * 1000).toISOString();
    return { id: `erasure-fault-${i}`, type: 'call.started', conversation_id: `conv-erasure-${i}`, agent_id: AGENT, occurred_at: at, data: { caller_number: caller, start_time: at } };
  };
  const publishCalls = async (from: number, to: number, caller: (i: number) => string, msgId: (id: string) => string) => {
    const js = jetstream(fixture.nc);
    const subject = namespacedSubject(fixture.namespace, callEventSubject('call.started'));
    for (let i = from; i < to; i += 200) {
      await Promise.all(Array.from({ length: Math.min(200, to - i) }, (_, k) => {
        const event = callStarted(i + k, caller(i + k));
        return js.publish(subject, JSON.stringify(event), { msgID: msgId(event.id) });
      }));
    }
  };

  beforeAll(async () => {
    fixture = await OutboundFixture.open('faulterase', () => undefined);
    await startConversations();
    const agent: AgentIntegrationEvent = {
      id: 'fault-erasure-agent', type: 'AgentCreated', version: 1, occurred_at: new Date().toISOString(),
      agent: { agent_id: AGENT, account_id: ACCOUNT, name: 'Front Desk', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
    };
    await jetstream(fixture.nc).publish(namespacedSubject(fixture.namespace, agentEventSubject('AgentCreated')), JSON.stringify(agent), { msgID: agent.id });
    for (const deadline = Date.now() + 30_000; (await count('SELECT count(*)::int AS n FROM conversations.agents')) === 0; ) {
      if (Date.now() > deadline) throw new Error('the agent never became known to conversations-service');
      await sleep(50);
    }
    await publishCalls(0, CALLER_CALLS + OTHER_CALLS, (i) => (i < CALLER_CALLS ? CALLER : OTHER), (id) => id);
    for (const deadline = Date.now() + 120_000; (await count('SELECT count(*)::int AS n FROM conversations.conversations')) < CALLER_CALLS + OTHER_CALLS; ) {
      if (Date.now() > deadline) throw new Error('the calls were not all recorded');
      await sleep(100);
    }
    client = new NamespacedNatsClient(fixture.namespace, { servers: [testNatsUrl()] });
    await client.connect();
  }, 240_000);

  afterAll(async () => {
    await client?.close();
    await fixture?.close();
  });

  it('the erasure completes after the restart; every conversation of the caller erased once, nothing else touched', async () => {
    const created = await firstValueFrom(
      client.send<DataRequestView>(DataRequestsRpc.create, { account_id: ACCOUNT, body: { type: 'erasure', caller_number: CALLER } }).pipe(timeout(10_000)),
    );
    const progress = async () => (await fixture.db.query('SELECT status, conversations_done AS done FROM conversations.data_requests WHERE id = $1', [created.id])).rows[0];
    for (const deadline = Date.now() + 60_000; (await progress()).done === 0; ) {
      if (Date.now() > deadline) throw new Error('the erasure never started');
      await sleep(5);
    }
    conversations!.kill('SIGKILL');
    await new Promise((r) => conversations!.once('exit', r));
    const atKill = await progress();
    const killedAt = Date.now();
    await sleep(1_000);
    await startConversations();

    let final = atKill;
    for (const deadline = Date.now() + 120_000; final.status !== 'completed' && Date.now() < deadline; ) {
      await sleep(100);
      final = await progress();
    }
    const completedMs = Date.now() - killedAt;
    const view = await firstValueFrom(
      client.send<DataRequestView>(DataRequestsRpc.get, { account_id: ACCOUNT, request_id: created.id }).pipe(timeout(10_000)),
    );

    // The erased calls' events once more (a JetStream redelivery or a platform's retry): none comes back.
    await publishCalls(0, CALLER_CALLS, () => CALLER, (id) => `again:${id}`);
    const witness = callStarted(CALLER_CALLS + OTHER_CALLS, OTHER);
    await jetstream(fixture.nc).publish(namespacedSubject(fixture.namespace, callEventSubject('call.started')), JSON.stringify(witness), { msgID: witness.id });
    for (const deadline = Date.now() + 60_000; (await count('SELECT count(*)::int AS n FROM conversations.conversations')) < OTHER_CALLS + 1; ) {
      if (Date.now() > deadline) throw new Error('the witness call was not recorded');
      await sleep(100);
    }
    await sleep(1_000);

    const left = {
      conversations: await count('SELECT count(*)::int AS n FROM conversations.conversations WHERE caller_number = $1', [CALLER]),
      events: await count(`SELECT count(*)::int AS n FROM conversations.events WHERE data->'data'->>'caller_number' = $1`, [CALLER]),
      search: await count(`SELECT count(*)::int AS n FROM conversations.conversation_search s WHERE NOT EXISTS (SELECT 1 FROM conversations.conversations c WHERE c.account_id = s.account_id AND c.id = s.id)`),
      outbox: await count(`SELECT count(*)::int AS n FROM conversations.conversation_changes WHERE item->>'caller_number' = $1`, [CALLER]),
    };
    const tombstones = await count('SELECT count(*)::int AS n FROM conversations.erased_conversations WHERE account_id = $1', [ACCOUNT]);
    const others = await count('SELECT count(*)::int AS n FROM conversations.conversations WHERE caller_number = $1', [OTHER]);
    const total = await count('SELECT conversations::int AS n FROM conversations.account_totals WHERE account_id = $1', [ACCOUNT]);
    const rebuild = await rebuildConversationsProjection({ databaseUrl: fixture.db.url });
    console.log(
      `erasure, kill -9 of conversations-service with ${atKill.done}/${CALLER_CALLS} erased (${atKill.status}): completed ${completedMs} ms after the kill; ` +
        `found ${view.conversations_found}, done ${view.conversations_done}, tombstones ${tombstones}, left ${JSON.stringify(left)}, other caller ${others}/${OTHER_CALLS + 1}, ` +
        `rebuild identical ${rebuild.identical}`,
    );
    expect(atKill.done).toBeLessThan(CALLER_CALLS);
    expect(view).toMatchObject({ status: 'completed', conversations_found: CALLER_CALLS, conversations_done: CALLER_CALLS });
    expect(left).toEqual({ conversations: 0, events: 0, search: 0, outbox: 0 });
    expect(tombstones).toBe(CALLER_CALLS);
    expect(others).toBe(OTHER_CALLS + 1);
    expect(total).toBe(OTHER_CALLS + 1);
    expect(rebuild).toMatchObject({ identical: true, totals_identical: true });
  }, 360_000);
});
