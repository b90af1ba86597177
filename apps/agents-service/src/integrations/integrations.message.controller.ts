import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  IntegrationsRpc, type ConfigureIntegrationRequest, type GetIntegrationRequest, type IntegrationListReply, type IntegrationReply,
  type ListIntegrationsRequest, type RemoveIntegrationRequest, type WebhookSecretReply, type WebhookSecretRequest,
} from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { ConfigureIntegrationHandler } from './configure-integration.handler.js';
import { GetIntegrationsHandler } from './get-integrations.handler.js';
import { RemoveIntegrationHandler } from './remove-integration.handler.js';
import { WebhookSecretHandler } from './webhook-secret.handler.js';

function accountIdOf(request: { account_id?: unknown } | undefined): string {
  if (typeof request?.account_id !== 'string') fail('invalid_request', 'account_id is required.');
  return request.account_id;
}

@Controller()
export class IntegrationsMessageController {
  constructor(
    private readonly configure: ConfigureIntegrationHandler,
    private readonly read: GetIntegrationsHandler,
    private readonly remover: RemoveIntegrationHandler,
    private readonly webhookSecrets: WebhookSecretHandler,
  ) {}

  @MessagePattern(IntegrationsRpc.configure)
  put(@Payload() request: ConfigureIntegrationRequest): Promise<IntegrationReply> {
    if (typeof request?.account?.id !== 'string' || !Array.isArray(request.account.voice_platforms)) fail('invalid_request', 'account is required.');
    return this.configure.execute(request);
  }

  @MessagePattern(IntegrationsRpc.get)
  get(@Payload() request: GetIntegrationRequest): Promise<IntegrationReply> {
    return this.read.one(accountIdOf(request), request.platform);
  }

  @MessagePattern(IntegrationsRpc.list)
  list(@Payload() request: ListIntegrationsRequest): Promise<IntegrationListReply> {
    return this.read.list(accountIdOf(request));
  }

  @MessagePattern(IntegrationsRpc.webhookSecret)
  webhookSecret(@Payload() request: WebhookSecretRequest): Promise<WebhookSecretReply> {
    return this.webhookSecrets.execute(request?.integration_id);
  }

  @MessagePattern(IntegrationsRpc.remove)
  async remove(@Payload() request: RemoveIntegrationRequest): Promise<{ removed: true }> {
    await this.remover.execute(accountIdOf(request), request.platform);
    return { removed: true };
  }
}
