import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { NotificationsRpc, type HealthReply } from '@voice/contracts';
import { WebhookEndpointsStore } from '../webhook-endpoints/webhook-endpoints.store.js';

@Controller()
export class HealthMessageController {
  constructor(private readonly store: WebhookEndpointsStore) {}

  /** Answers only when the database answers too. */
  @MessagePattern(NotificationsRpc.health)
  async health(): Promise<HealthReply> {
    await this.store.ping();
    return { service: 'notifications-service', status: 'ok' };
  }
}
