/**
 * Outbound conversation events under kill -9 of the service producing the change (conversations-service): 2,000
 * calls start (one call.started each on CALL_EVENTS) while conversations-service records them and
 * notifications-service turns their changes into webhooks for one endpoint on loopback; conversations-service is
 * killed with SIGKILL once a quarter of the calls is recorded, while the changes stream has been refusing messages
 * for 1.5 s (so committed changes wait for the bus), and restarted a second later with the stream open again. What must hold:
 * every call's conversation event reaches the endpoint at least once, correctly signed (0 lost: a change
 * committed before the kill is still published, from the outbox); duplicates are counted and printed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DiscardPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  agentEventSubject, callEventSubject, CONVERSATION_CHANGES_STREAM, namespacedStream, namespacedSubject, type AgentIntegrationEvent,
} from '@voice/contracts';
import { natsConnectionOptions, SecretBox } from '@voice/service-kit';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { deleteNamespaceStreams, randomNamespace, testNatsUrl } from '../support/nats.js';
import { startBuiltProcess } from '../support/processes.js';

const root = resolve(fileURLToPath(import.meta.url), '../../..');
const CONVERSATIONS_MAIN = join(root, 'apps/conversations-service/dist/main.js');
const NOTIFICATIONS_MAIN = join(root, 'apps/notifications-service/dist/main.js');
const CALLS = 2_000;
const ACCOUNT = 'acct_faultconversations0001';
const AGENT = 'agt_faultconversationsagent01';

describe('fault: kill -9 of conversations-service while its changes become webhooks', () => {
  let db: TestDatabase;
  let nc: NatsConnection;
  let server: Server;
  let conversations: ChildProcess | undefined;
  let notifications: ChildProcess | undefined;
  const namespace = randomNamespace();
  const key = randomBytes(32);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  /** Deliveries per conversation (any conversation.* event of it). */
  const seen = new Map<string, number>();
  let badSignatures = 0;
  const env = () => ({
    DATABASE_URL: db.url, NATS_URL: testNatsUrl(), NATS_NAMESPACE: namespace, INTEGRATIONS_KEY: key.toString('base64'),
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '0,200,500,1000,2000,5000', CALL_EVENTS_ACK_WAIT_MS: '5000',
  });
  const startConversations = async () => (conversations = await startBuiltProcess(CONVERSATIONS_MAIN, env(), 'conversations-service ready', 60_000));

  beforeAll(async () => {
    db = await createTestDatabase('faultconv');
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        try {
          const event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as { type: string; data: { conversation?: { id: string } } };
          if (event.type.startsWith('conversation.')) {
            const id = event.data.conversation!.id;
            seen.set(id, (seen.get(id) ?? 0) + 1);
          }
        } catch {
          badSignatures++;
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    await startConversations();
    notifications = await startBuiltProcess(NOTIFICATIONS_MAIN, env(), 'notifications-service ready', 60_000);
    const endpointId = `we_${randomBytes(12).toString('hex')}`;
    const sealed = new SecretBox({ current: key }).seal(secret, `${endpointId}/secret`);
    await db.query(
      `INSERT INTO notifications.endpoints (id, account_id, url, enabled, secret_sealed, secret_hint, created_at, updated_at) VALUES ($1, $2, $3, true, $4, $5, now(), now())`,
      [endpointId, ACCOUNT, `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`, sealed, secret.slice(-4)],
    );
    nc = await connect(natsConnectionOptions(testNatsUrl()));
    const agent: AgentIntegrationEvent = {
      id: 'fault-conversations-agent', type: 'AgentCreated', version: 1, occurred_at: new Date().toISOString(),
      agent: { agent_id: AGENT, account_id: ACCOUNT, name: 'Front Desk', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
    };
    await jetstream(nc).publish(namespacedSubject(namespace, agentEventSubject('AgentCreated')), JSON.stringify(agent), { msgID: agent.id });
    for (const deadline = Date.now() + 30_000; ; ) {
      const { rows } = await db.query('SELECT 1 FROM conversations.agents WHERE agent_id = $1', [AGENT]);
      if (rows.length > 0) break;
      if (Date.now() > deadline) throw new Error('the agent never became known to conversations-service');
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 180_000);

  afterAll(async () => {
    conversations?.kill('SIGKILL');
    notifications?.kill('SIGKILL');
    await nc?.close().catch(() => undefined);
    server?.close();
    await deleteNamespaceStreams(namespace).catch(() => undefined);
    await db?.drop().catch(() => undefined);
  });

  it('every call’s conversation event delivered at least once, signed; duplicates counted', async () => {
    const js = jetstream(nc);
    const subject = namespacedSubject(namespace, callEventSubject('call.started'));
    const start = Date.parse('2025-03-01T10:00:00.000Z');
    const publishing = (async () => {
      for (let i = 0; i < CALLS; i++) {
        const at = new Date(start + i * 1000).toISOString();
        const event = {
          id: `fault-call-started-${i}`, type: 'call.started', conversation_id: `conv-fault-${i}`, agent_id: AGENT, occurred_at: at,
          data: { caller_number: '+14155550123', start_time: at },
        };
        await js.publish(subject, JSON.stringify(event), { msgID: event.id });
      }
    })();

    const recordedCalls = async () => (await db.query('SELECT count(*)::int AS n FROM conversations.conversations')).rows[0].n as number;
    for (const deadline = Date.now() + 60_000; (await recordedCalls()) < CALLS / 4 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 10));
    // The changes stream stops taking messages for a while, so changes committed then are still waiting for the bus
    // when the kill comes (not only the few of the last milliseconds).
    const jsm = await jetstreamManager(nc);
    const changes = namespacedStream(namespace, CONVERSATION_CHANGES_STREAM);
    const { config, state } = await jsm.streams.info(changes);
    await jsm.streams.update(changes, { ...config, max_msgs: Math.max(1, state.messages), discard: DiscardPolicy.New });
    await new Promise((r) => setTimeout(r, 1_500));
    conversations!.kill('SIGKILL');
    await new Promise((r) => conversations!.once('exit', r));
    const killedAt = seen.size;
    const recorded = await recordedCalls();
    await jsm.streams.update(changes, { ...config });
    await new Promise((r) => setTimeout(r, 1_000));
    await startConversations();
    await publishing;

    for (const deadline = Date.now() + 180_000; seen.size < CALLS && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
    const received = [...seen.values()].reduce((a, b) => a + b, 0);
    const duplicates = received - seen.size;
    console.log(
      `outbound events, kill -9 of conversations-service with ${recorded}/${CALLS} calls recorded and ${killedAt} delivered: ` +
        `${seen.size} delivered, ${CALLS - seen.size} lost, ${duplicates} duplicates, ${badSignatures} bad signatures`,
    );
    expect({ lost: CALLS - seen.size, badSignatures }).toEqual({ lost: 0, badSignatures: 0 });
  }, 360_000);
});
