/**
 * What the outbound-events fault files share: the built services they run on their own namespace and database,
 * the endpoint they register straight in notifications-service's table, and a loopback receiver there that counts
 * deliveries per key and bad signatures.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsConnectionOptions, SecretBox } from '@voice/service-kit';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { deleteNamespaceStreams, randomNamespace, testNatsUrl } from '../../support/nats.js';
import { startBuiltProcess } from '../../support/processes.js';
import { startWebhookReceiver, type ReceivedWebhook } from '../../support/webhook-receiver.js';

const root = resolve(fileURLToPath(import.meta.url), '../../../..');
export type OutboundService = 'notifications-service' | 'conversations-service';

/**
 * One file's own database, namespace and integrations key for the built services it starts, a loopback endpoint
 * (a delivery counter) and a NATS connection; `close` kills every process it started and removes what it made.
 */
export class OutboundFixture {
  readonly namespace = randomNamespace();
  readonly key = randomBytes(32);
  private readonly started: ChildProcess[] = [];

  private constructor(readonly db: TestDatabase, readonly secret: string, readonly endpoint: DeliveryCounter, readonly nc: NatsConnection) {}

  /** `keyOf` says what the endpoint counts deliveries by (see startDeliveryCounter). */
  static async open(databasePrefix: string, keyOf: (request: ReceivedWebhook) => string | undefined): Promise<OutboundFixture> {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const db = await createTestDatabase(databasePrefix);
    let endpoint: DeliveryCounter | undefined;
    try {
      endpoint = await startDeliveryCounter(secret, keyOf);
      return new OutboundFixture(db, secret, endpoint, await connect(natsConnectionOptions(testNatsUrl())));
    } catch (err) {
      void endpoint?.close();
      await db.drop().catch(() => undefined);
      throw err;
    }
  }

  /** The environment of the built services: private (loopback) endpoints allowed, retries within seconds. */
  private env(extra: Record<string, string>): Record<string, string> {
    return {
      DATABASE_URL: this.db.url, NATS_URL: testNatsUrl(), NATS_NAMESPACE: this.namespace, INTEGRATIONS_KEY: this.key.toString('base64'),
      ALLOW_PRIVATE_WEBHOOK_URLS: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '0,200,500,1000,2000,5000', ...extra,
    };
  }

  async startService(service: OutboundService, extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
    const child = await startBuiltProcess(join(root, `apps/${service}/dist/main.js`), this.env(extraEnv), `${service} ready`, 60_000);
    this.started.push(child);
    return child;
  }

  /** An enabled endpoint of `accountId` for every event type, at the counter's URL, its secret sealed with the services' key. */
  async registerEndpoint(accountId: string): Promise<void> {
    const endpointId = `we_${randomBytes(12).toString('hex')}`;
    const sealed = new SecretBox({ current: this.key }).seal(this.secret, `${endpointId}/secret`);
    await this.db.query(
      `INSERT INTO notifications.endpoints (id, account_id, url, enabled, secret_sealed, secret_hint, created_at, updated_at) VALUES ($1, $2, $3, true, $4, $5, now(), now())`,
      [endpointId, accountId, this.endpoint.url, sealed, this.secret.slice(-4)],
    );
  }

  async close(): Promise<void> {
    for (const child of this.started) child.kill('SIGKILL');
    await this.nc.close().catch(() => undefined);
    void this.endpoint.close();
    await deleteNamespaceStreams(this.namespace).catch(() => undefined);
    await this.db.drop().catch(() => undefined);
  }
}

export interface DeliveryCounter {
  url: string;
  /** Deliveries per key. */
  seen: Map<string, number>;
  readonly badSignatures: number;
  /** Every counted delivery, duplicates included. */
  readonly received: number;
  close(): Promise<void>;
}

/**
 * A loopback endpoint answering 204 to everything: counts requests whose signature does not verify with `secret`,
 * and deliveries per `keyOf` (undefined: not counted).
 */
export async function startDeliveryCounter(secret: string, keyOf: (request: ReceivedWebhook) => string | undefined): Promise<DeliveryCounter> {
  const seen = new Map<string, number>();
  let badSignatures = 0;
  const receiver = await startWebhookReceiver({
    path: '/in',
    secret,
    onRequest: (request) => {
      if (!request.verified) badSignatures++;
      const key = keyOf(request);
      if (key !== undefined) seen.set(key, (seen.get(key) ?? 0) + 1);
      return { status: 204 };
    },
  });
  return {
    url: receiver.url,
    seen,
    get badSignatures() {
      return badSignatures;
    },
    get received() {
      return [...seen.values()].reduce((a, b) => a + b, 0);
    },
    close: receiver.close,
  };
}
