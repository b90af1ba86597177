/**
 * Outbound events under kill -9 of notifications-service: 2,000 agent events reach AGENT_EVENTS (as the agents'
 * relay publishes them) while the service records and delivers them to one endpoint on loopback; the service is
 * killed with SIGKILL a quarter of the way and restarted a second later. What must hold: every event reaches the
 * endpoint at least once, correctly signed (0 lost); duplicates (the price of at least once) are counted and printed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, namespacedStream, namespacedSubject, type AgentIntegrationEvent } from '@voice/contracts';
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
const MAIN = join(root, 'apps/notifications-service/dist/main.js');
const EVENTS = 2_000;
const ACCOUNT = 'acct_faultnotifications00001';

describe('fault: kill -9 of notifications-service mid-delivery', () => {
  let db: TestDatabase;
  let nc: NatsConnection;
  let server: Server;
  let service: ChildProcess | undefined;
  const namespace = randomNamespace();
  const key = randomBytes(32);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const seen = new Map<string, number>();
  let badSignatures = 0;
  const env = () => ({
    DATABASE_URL: db.url, NATS_URL: testNatsUrl(), NATS_NAMESPACE: namespace, INTEGRATIONS_KEY: key.toString('base64'),
    ALLOW_PRIVATE_WEBHOOK_URLS: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '0,200,500,1000,2000,5000',
  });
  const start = async () => (service = await startBuiltProcess(MAIN, env(), 'notifications-service ready', 60_000));

  beforeAll(async () => {
    db = await createTestDatabase('faultnotif');
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>);
        } catch {
          badSignatures++;
        }
        const id = String(req.headers['webhook-id']);
        seen.set(id, (seen.get(id) ?? 0) + 1);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    await start();
    const endpointId = `we_${randomBytes(12).toString('hex')}`;
    const sealed = new SecretBox({ current: key }).seal(secret, `${endpointId}/secret`);
    await db.query(
      `INSERT INTO notifications.endpoints (id, account_id, url, enabled, secret_sealed, secret_hint, created_at, updated_at) VALUES ($1, $2, $3, true, $4, $5, now(), now())`,
      [endpointId, ACCOUNT, `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`, sealed, secret.slice(-4)],
    );
    nc = await connect(natsConnectionOptions(testNatsUrl()));
  }, 120_000);

  afterAll(async () => {
    service?.kill('SIGKILL');
    await nc?.close().catch(() => undefined);
    server?.close();
    await deleteNamespaceStreams(namespace).catch(() => undefined);
    await db?.drop().catch(() => undefined);
  });

  it('every event delivered at least once, signed; duplicates counted', async () => {
    const js = jetstream(nc);
    const subject = namespacedSubject(namespace, `${AGENT_EVENTS_SUBJECT_ROOT}.AgentCreated`);
    expect(namespacedStream(namespace, AGENT_EVENTS_STREAM)).toContain('AGENT_EVENTS');
    const publishing = (async () => {
      for (let i = 0; i < EVENTS; i++) {
        const event: AgentIntegrationEvent = {
          id: `fault-agent-event-${i}`, type: 'AgentCreated', version: 1, occurred_at: new Date().toISOString(),
          agent: { agent_id: `agt_${String(i).padStart(24, '0')}`, account_id: ACCOUNT, name: `Agent ${i}`, voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
        };
        await js.publish(subject, JSON.stringify(event), { msgID: event.id });
      }
    })();

    for (const deadline = Date.now() + 60_000; seen.size < EVENTS / 4 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    expect(seen.size).toBeGreaterThanOrEqual(EVENTS / 4);
    service!.kill('SIGKILL');
    await new Promise((r) => service!.once('exit', r));
    const killedAt = seen.size;
    await new Promise((r) => setTimeout(r, 1_000));
    await start();
    await publishing;

    for (const deadline = Date.now() + 120_000; seen.size < EVENTS && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
    const received = [...seen.values()].reduce((a, b) => a + b, 0);
    const duplicates = received - seen.size;
    console.log(`outbound events, kill -9 of notifications-service at ${killedAt}/${EVENTS} delivered: ${seen.size} delivered, ${EVENTS - seen.size} lost, ${duplicates} duplicates, ${badSignatures} bad signatures`);
    expect({ lost: EVENTS - seen.size, badSignatures }).toEqual({ lost: 0, badSignatures: 0 });
  }, 240_000);
});
