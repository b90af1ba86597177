import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  NotificationsRpc, type CreatedWebhookEndpoint, type CreateWebhookEndpointRequest, type ListWebhookEndpointsRequest, type PageResult,
  type UpdateWebhookEndpointRequest, type WebhookEndpointRequest, type WebhookEndpointSecretReply, type WebhookEndpointView,
} from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { WebhookEndpointsHandler } from './webhook-endpoints.handler.js';

function accountIdOf(request: { account_id?: unknown } | undefined): string {
  if (typeof request?.account_id !== 'string') fail('invalid_request', 'account_id is required.');
  return request.account_id;
}
function endpointIdOf(request: { endpoint_id?: unknown } | undefined): string {
  return typeof request?.endpoint_id === 'string' ? request.endpoint_id : '';
}

@Controller()
export class WebhookEndpointsMessageController {
  constructor(private readonly endpoints: WebhookEndpointsHandler) {}

  @MessagePattern(NotificationsRpc.createEndpoint)
  create(@Payload() request: CreateWebhookEndpointRequest): Promise<CreatedWebhookEndpoint> {
    if (typeof request?.account?.id !== 'string') fail('invalid_request', 'account is required.');
    return this.endpoints.create(request.account, request.body);
  }

  @MessagePattern(NotificationsRpc.listEndpoints)
  list(@Payload() request: ListWebhookEndpointsRequest): Promise<PageResult<WebhookEndpointView>> {
    return this.endpoints.list(accountIdOf(request), request.query ?? {});
  }

  @MessagePattern(NotificationsRpc.getEndpoint)
  get(@Payload() request: WebhookEndpointRequest): Promise<WebhookEndpointView> {
    return this.endpoints.get(accountIdOf(request), endpointIdOf(request));
  }

  @MessagePattern(NotificationsRpc.endpointSecret)
  secret(@Payload() request: WebhookEndpointRequest): Promise<WebhookEndpointSecretReply> {
    return this.endpoints.secret(accountIdOf(request), endpointIdOf(request));
  }

  @MessagePattern(NotificationsRpc.rotateSecret)
  rotate(@Payload() request: WebhookEndpointRequest): Promise<WebhookEndpointSecretReply> {
    return this.endpoints.rotate(accountIdOf(request), endpointIdOf(request));
  }

  @MessagePattern(NotificationsRpc.updateEndpoint)
  update(@Payload() request: UpdateWebhookEndpointRequest): Promise<WebhookEndpointView> {
    return this.endpoints.update(accountIdOf(request), endpointIdOf(request), request.body);
  }

  @MessagePattern(NotificationsRpc.deleteEndpoint)
  async remove(@Payload() request: WebhookEndpointRequest): Promise<{ deleted: true }> {
    await this.endpoints.remove(accountIdOf(request), endpointIdOf(request));
    return { deleted: true };
  }
}
