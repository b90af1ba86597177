import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { OutboundEvent, WebhookTestData } from '@voice/contracts';
import { DataSource } from 'typeorm';
import type { LeasedDelivery } from '../deliver-events/deliveries.store.js';
import { newDeliveryId, newEventId } from '../record-events/record-events.store.js';

/**
 * Records a `webhook.test` event for one endpoint and its delivery, leased to the caller already: the caller
 * attempts it at once and settles it like the worker does, and no worker attempts it meanwhile.
 */
@Injectable()
export class SendTestEventStore {
  constructor(private readonly dataSource: DataSource) {}

  async record(accountId: string, endpointId: string, leaseMs: number): Promise<LeasedDelivery | undefined> {
    return this.dataSource.transaction(async (em) => {
      const [endpoint] = await em.query(
        'SELECT id, url, secret_sealed, previous_secret_sealed, previous_secret_expires_at FROM notifications.endpoints WHERE account_id = $1 AND id = $2',
        [accountId, endpointId],
      );
      if (!endpoint) return undefined;
      const now = new Date();
      const data: WebhookTestData = { endpoint_id: endpointId };
      const event: OutboundEvent = { id: newEventId(), type: 'webhook.test', timestamp: now.toISOString(), data };
      const body = JSON.stringify(event);
      await em.query(
        `INSERT INTO notifications.events (id, account_id, type, source_key, body, created_at) VALUES ($1, $2, 'webhook.test', $3, $4, $5)`,
        [event.id, accountId, `test:${randomUUID()}`, body, now],
      );
      const delivery = { id: newDeliveryId(), lease_token: randomUUID() };
      await em.query(
        `INSERT INTO notifications.deliveries (id, account_id, endpoint_id, event_id, status, next_attempt_at, lease_token, lease_until, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'pending', $5, $6, $5::timestamptz + ($7 || ' milliseconds')::interval, $5, $5)`,
        [delivery.id, accountId, endpointId, event.id, now, delivery.lease_token, String(leaseMs)],
      );
      return { ...delivery, attempts: 0, endpoint_id: endpointId, url: endpoint.url, secret_sealed: endpoint.secret_sealed,
        previous_secret_sealed: endpoint.previous_secret_sealed, previous_secret_expires_at: endpoint.previous_secret_expires_at, event_id: event.id, body };
    });
  }
}
