import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, Req } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  IntegrationsRpc,
  PAGINATION,
  toIntegrationView,
  VOICE_PLATFORMS,
  type ConfigureIntegrationRequest,
  type GetIntegrationRequest,
  type IntegrationListReply,
  type IntegrationReply,
  type ListIntegrationsRequest,
  type RemoveIntegrationRequest,
  type StoredIntegration,
  type IntegrationView,
} from '@voice/contracts';
import { AuditLog } from '../audit/audit-log.js';
import { RequireScope } from '../auth/access.decorators.js';
import { listEnvelope, success } from '../http/envelope.js';
import { callerOf, requestIdOf } from '../http/gateway-request.js';
import { ref } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiJsonBody, ApiNoContent, ApiRoute } from '../openapi/route-docs.js';
import { ServiceClient } from '../rpc/service-client.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../tokens.js';
import { WebhookDeliveriesStore } from '../webhooks/webhook-deliveries.store.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';

/** PUT waits for one platform call (PLATFORM_REQUEST_TIMEOUT_MS, 5 s by default) on top of the usual service time. */
const PLATFORM_CHECK_ALLOWANCE_MS = 10_000;

const ApiPlatformParam = () =>
  ApiParam({ name: 'platform', required: true, description: 'The voice platform.', schema: { type: 'string', enum: [...VOICE_PLATFORMS] } });

/**
 * An account's credentials for its voice platforms. agents-service checks,
 * seals and stores them; the gateway adds the webhook URL (it knows PUBLIC_URL).
 * Secrets are in the PUT body only: never in an answer.
 */
@Controller('v1/integrations')
export class IntegrationsController {
  constructor(
    private readonly services: ServiceClient,
    private readonly deliveries: WebhookDeliveriesStore,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
  ) {}

  /** The views, with the refused webhook deliveries the gateway counted for each. */
  private async views(accountId: string, records: StoredIntegration[]): Promise<IntegrationView[]> {
    const rejections = await this.deliveries.rejections(accountId, records.map((record) => record.id));
    return records.map((record) => toIntegrationView(record, this.settings.publicUrl ?? '', rejections.get(record.id)));
  }

  @Get()
  @RequireScope('integrations:read')
  @ApiRoute('Integrations', 'List integrations', 'The account’s configured platforms (at most one integration each). Never includes the secrets.')
  @ApiEnvelope(200, 'Integration', { description: 'Every integration of the account.', list: true })
  async list(@Req() req: FastifyRequest) {
    const payload: ListIntegrationsRequest = { account_id: callerOf(req).account.id };
    const reply = await this.services.send<IntegrationListReply>(IntegrationsRpc.list, payload, { requestId: requestIdOf(req) });
    const items = await this.views(payload.account_id, reply.items);
    return listEnvelope(req, { items, total: items.length, page: 1, per_page: PAGINATION.maxPerPage });
  }

  @Get(':platform')
  @RequireScope('integrations:read')
  @ApiRoute('Integrations', 'Get an integration')
  @ApiPlatformParam()
  @ApiEnvelope(200, 'Integration', { description: 'The integration.' })
  @ApiErrors('invalid_parameter', 'not_found')
  async get(@Req() req: FastifyRequest, @Param('platform') platform: string) {
    const payload: GetIntegrationRequest = { account_id: callerOf(req).account.id, platform };
    const reply = await this.services.send<IntegrationReply>(IntegrationsRpc.get, payload, { requestId: requestIdOf(req) });
    const [view] = await this.views(payload.account_id, [reply.integration]);
    return success(req, view);
  }

  @Put(':platform')
  @RequireScope('integrations:write')
  @Idempotent()
  @ApiRoute(
    'Integrations',
    'Configure an integration',
    'Creates or replaces the platform’s credentials (a replacement keeps the webhook URL). The key is checked once with the platform: ' +
      'refused → 422 invalid_platform_credentials and nothing is saved; platform unreachable → saved with status unreachable.',
  )
  @ApiPlatformParam()
  @ApiJsonBody(ref('ConfigureIntegrationRequest'))
  @ApiEnvelope(200, 'Integration', { description: 'The integration as saved.' })
  @ApiErrors('invalid_request', 'invalid_parameter', 'missing_required_field', 'platform_not_enabled', 'invalid_platform_credentials')
  async configure(@Req() req: FastifyRequest, @Param('platform') platform: string, @Body() body: unknown) {
    const payload: ConfigureIntegrationRequest = { account: callerOf(req).account, platform, body, public_url: this.settings.publicUrl ?? '' };
    // The service checks the key with the platform (one call, its own deadline) before answering: allow for it.
    const timeoutMs = this.settings.rpcTimeoutMs + PLATFORM_CHECK_ALLOWANCE_MS;
    const reply = await this.services.send<IntegrationReply>(IntegrationsRpc.configure, payload, { requestId: requestIdOf(req), timeoutMs });
    // An integration is one per platform, and a removal names only the platform: the platform is the target.
    await this.audit.record(req, { action: 'integration.configured', targetId: platform });
    const [view] = await this.views(payload.account.id, [reply.integration]);
    return success(req, view);
  }

  @Delete(':platform')
  @RequireScope('integrations:write')
  @HttpCode(204)
  @ApiRoute('Integrations', 'Remove an integration', 'Refused (409 integration_in_use) while live agents of the account use the platform.')
  @ApiPlatformParam()
  @ApiNoContent('Removed.')
  @ApiErrors('invalid_parameter', 'not_found', 'integration_in_use')
  async remove(@Req() req: FastifyRequest, @Param('platform') platform: string): Promise<void> {
    const payload: RemoveIntegrationRequest = { account_id: callerOf(req).account.id, platform };
    await this.services.send<unknown>(IntegrationsRpc.remove, payload, { requestId: requestIdOf(req) });
    await this.audit.record(req, { action: 'integration.removed', targetId: platform });
  }
}
