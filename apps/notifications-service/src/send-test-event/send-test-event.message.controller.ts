import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NotificationsRpc, type WebhookEndpointRequest, type WebhookTestResult } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { ENDPOINT_ID } from '../webhook-endpoints/webhook-endpoint.rules.js';
import { DELIVERY_ATTEMPTS, type DeliveryAttempts } from '../deliver-events/delivery.worker.js';
import { SendTestEventStore } from './send-test-event.store.js';

/** POST /v1/webhook-endpoints/{id}/test: a webhook.test event to this endpoint, attempted now; the answer is the attempt's outcome. */
@Controller()
export class SendTestEventMessageController {
  constructor(
    private readonly store: SendTestEventStore,
    @Inject(DELIVERY_ATTEMPTS) private readonly attempts: DeliveryAttempts,
  ) {}

  @MessagePattern(NotificationsRpc.sendTestEvent)
  async send(@Payload() request: WebhookEndpointRequest): Promise<WebhookTestResult> {
    if (typeof request?.account_id !== 'string') fail('invalid_request', 'account_id is required.');
    const endpointId = typeof request.endpoint_id === 'string' ? request.endpoint_id : '';
    const delivery = ENDPOINT_ID.test(endpointId) ? await this.store.record(request.account_id, endpointId, this.attempts.leaseMs) : undefined;
    if (!delivery) fail('not_found', 'No webhook endpoint with this id.', { field: 'id' });
    const sent = await this.attempts.attempt(delivery);
    return {
      event_id: delivery.event_id,
      delivery_id: delivery.id,
      succeeded: sent.statusCode !== undefined && sent.statusCode >= 200 && sent.statusCode < 300,
      status_code: sent.statusCode ?? null,
      error: sent.error ?? null,
      duration_ms: sent.durationMs,
      response_body: sent.responseBody,
    };
  }
}
