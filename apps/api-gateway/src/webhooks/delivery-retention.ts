import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS } from '@voice/contracts';
import type { Logger } from 'pino';
import { HourlyPrune } from '../maintenance/hourly-prune.js';
import { GATEWAY_SETTINGS, LOGGER, type GatewaySettings } from '../tokens.js';
import { WebhookDeliveriesStore } from './webhook-deliveries.store.js';

/** Deletes webhook deliveries (bodies included) older than the retention period, and rejection counts older than a day. */
@Injectable()
export class DeliveryRetention extends HourlyPrune {
  constructor(
    private readonly deliveries: WebhookDeliveriesStore,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(logger, 'webhook deliveries past their retention');
  }

  protected async prune(): Promise<number> {
    const { deliveries } = await this.deliveries.prune(this.settings.webhookRetentionDays ?? DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS);
    return deliveries;
  }
}
