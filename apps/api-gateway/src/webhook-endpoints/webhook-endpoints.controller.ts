import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  NotificationsRpc, type CreatedWebhookEndpoint, type CreateWebhookEndpointRequest, type ListWebhookEndpointsRequest, type PageResult, type RawQuery,
  type UpdateWebhookEndpointRequest, type WebhookEndpointRequest, type WebhookEndpointSecretReply, type WebhookEndpointView, type WebhookTestResult,
} from '@voice/contracts';
import { AuditLog } from '../audit/audit-log.js';
import { RequireScope } from '../auth/access.decorators.js';
import { listEnvelope, success } from '../http/envelope.js';
import { callerOf, requestIdOf } from '../http/gateway-request.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { ref } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiIdParam, ApiJsonBody, ApiNoContent, ApiPagination, ApiRoute } from '../openapi/route-docs.js';
import { ServiceClient } from '../rpc/service-client.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../tokens.js';

const ENDPOINT_ID = 'Webhook endpoint id (we_…).';
/** The test event's attempt may take its whole deadline (15 s) before the service answers. */
const TEST_ATTEMPT_ALLOWANCE_MS = 16_000;

/**
 * Where an account's own systems are told about its calls and agents (outbound events). notifications-service
 * validates, stores and delivers; the gateway authenticates and forwards with the caller's account.
 */
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly services: ServiceClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
  ) {}

  private one(req: FastifyRequest, id: string): WebhookEndpointRequest {
    return { account_id: callerOf(req).account.id, endpoint_id: id };
  }

  @Post()
  @RequireScope('webhooks:write')
  @Idempotent()
  @HttpCode(201)
  @ApiRoute(
    'Webhook endpoints',
    'Create a webhook endpoint',
    'Events of the account (all types and agents unless event_types / agent_ids narrow them) are POSTed to url, signed per Standard Webhooks ' +
      'with the secret in this answer. url: absolute https URL without credentials, at most 2,048 characters; its host must not resolve to an ' +
      'internal address (http, loopback and private addresses only with ALLOW_PRIVATE_WEBHOOK_URLS=true; link-local and cloud metadata never). ' +
      'At most 20 endpoints per account.',
  )
  @ApiJsonBody(ref('CreateWebhookEndpointRequest'))
  @ApiEnvelope(201, 'CreatedWebhookEndpoint', { description: 'The endpoint and its signing secret.', headers: ['Location'] })
  @ApiErrors('invalid_request', 'invalid_parameter', 'missing_required_field', 'quota_exceeded')
  async create(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply, @Body() body: unknown) {
    const payload: CreateWebhookEndpointRequest = { account: callerOf(req).account, body };
    const created = await this.services.send<CreatedWebhookEndpoint>(NotificationsRpc.createEndpoint, payload, { requestId: requestIdOf(req) });
    await this.audit.record(req, { action: 'webhook_endpoint.created', targetId: created.id });
    res.header('Location', `/v1/webhook-endpoints/${encodeURIComponent(created.id)}`);
    return success(req, created);
  }

  @Get()
  @RequireScope('webhooks:read')
  @ApiRoute('Webhook endpoints', 'List webhook endpoints', 'Newest first; never the secrets.')
  @ApiPagination()
  @ApiEnvelope(200, 'WebhookEndpoint', { description: 'One page of endpoints.', list: true })
  @ApiErrors('invalid_parameter')
  async list(@Req() req: FastifyRequest, @Query() query: RawQuery) {
    const payload: ListWebhookEndpointsRequest = { account_id: callerOf(req).account.id, query: { ...query } };
    const page = await this.services.send<PageResult<WebhookEndpointView>>(NotificationsRpc.listEndpoints, payload, { requestId: requestIdOf(req) });
    return listEnvelope(req, page);
  }

  @Get(':id')
  @RequireScope('webhooks:read')
  @ApiRoute('Webhook endpoints', 'Get a webhook endpoint', 'Never the secret (secret_hint shows its last 4 characters).')
  @ApiIdParam(ENDPOINT_ID)
  @ApiEnvelope(200, 'WebhookEndpoint', { description: 'The endpoint.' })
  @ApiErrors('not_found')
  async get(@Req() req: FastifyRequest, @Param('id') id: string) {
    return success(req, await this.services.send<WebhookEndpointView>(NotificationsRpc.getEndpoint, this.one(req, id), { requestId: requestIdOf(req) }));
  }

  @Get(':id/secret')
  @RequireScope('webhooks:write')
  @ApiRoute('Webhook endpoints', 'Reveal a webhook endpoint’s signing secret', 'The whsec_… secret receivers verify signatures with.')
  @ApiIdParam(ENDPOINT_ID)
  @ApiEnvelope(200, 'WebhookEndpointSecret', { description: 'The signing secret.' })
  @ApiErrors('not_found')
  async secret(@Req() req: FastifyRequest, @Param('id') id: string) {
    const secret = await this.services.send<WebhookEndpointSecretReply>(NotificationsRpc.endpointSecret, this.one(req, id), { requestId: requestIdOf(req) });
    await this.audit.record(req, { action: 'webhook_endpoint.secret_revealed', targetId: id });
    return success(req, secret);
  }

  @Post(':id/rotate-secret')
  @RequireScope('webhooks:write')
  @HttpCode(200)
  @ApiRoute(
    'Webhook endpoints',
    'Rotate a webhook endpoint’s signing secret',
    'A new secret now. For 24 hours the previous one signs too: every delivery carries both signatures in webhook-signature, so a ' +
      'receiver verifying with either secret accepts it while it switches over.',
  )
  @ApiIdParam(ENDPOINT_ID)
  @ApiEnvelope(200, 'WebhookEndpointSecret', { description: 'The new signing secret.' })
  @ApiErrors('not_found')
  async rotate(@Req() req: FastifyRequest, @Param('id') id: string) {
    const secret = await this.services.send<WebhookEndpointSecretReply>(NotificationsRpc.rotateSecret, this.one(req, id), { requestId: requestIdOf(req) });
    await this.audit.record(req, { action: 'webhook_endpoint.secret_rotated', targetId: id });
    return success(req, secret);
  }

  @Post(':id/test')
  @RequireScope('webhooks:write')
  @HttpCode(200)
  @ApiRoute(
    'Webhook endpoints',
    'Send a test event',
    'A webhook.test event ({ endpoint_id }) is sent to the endpoint now, whatever its event_types; the answer is that attempt’s outcome. ' +
      'It is a delivery like any other: listed, and retried on the schedule when it failed.',
  )
  @ApiIdParam(ENDPOINT_ID)
  @ApiEnvelope(200, 'WebhookTestResult', { description: 'The attempt’s outcome.' })
  @ApiErrors('not_found')
  async test(@Req() req: FastifyRequest, @Param('id') id: string) {
    const options = { requestId: requestIdOf(req), timeoutMs: this.settings.rpcTimeoutMs + TEST_ATTEMPT_ALLOWANCE_MS };
    return success(req, await this.services.send<WebhookTestResult>(NotificationsRpc.sendTestEvent, this.one(req, id), options));
  }

  @Patch(':id')
  @RequireScope('webhooks:write')
  @ApiRoute('Webhook endpoints', 'Update a webhook endpoint', 'Partial update of url, description, event_types, agent_ids (null: all) and enabled.')
  @ApiIdParam(ENDPOINT_ID)
  @ApiJsonBody(ref('UpdateWebhookEndpointRequest'))
  @ApiEnvelope(200, 'WebhookEndpoint', { description: 'The updated endpoint.' })
  @ApiErrors('invalid_request', 'invalid_parameter', 'not_found')
  async update(@Req() req: FastifyRequest, @Param('id') id: string, @Body() body: unknown) {
    const payload: UpdateWebhookEndpointRequest = { ...this.one(req, id), body };
    const updated = await this.services.send<WebhookEndpointView>(NotificationsRpc.updateEndpoint, payload, { requestId: requestIdOf(req) });
    // The service accepted the body, so its keys are the fields sent: their names only, never the values (a URL can carry a token).
    await this.audit.record(req, { action: 'webhook_endpoint.updated', targetId: id, changedFields: Object.keys(body as object) });
    return success(req, updated);
  }

  @Delete(':id')
  @RequireScope('webhooks:write')
  @HttpCode(204)
  @ApiRoute('Webhook endpoints', 'Delete a webhook endpoint', 'Its pending deliveries are dropped with it.')
  @ApiIdParam(ENDPOINT_ID)
  @ApiNoContent('Deleted.')
  @ApiErrors('not_found')
  async remove(@Req() req: FastifyRequest, @Param('id') id: string): Promise<void> {
    await this.services.send<unknown>(NotificationsRpc.deleteEndpoint, this.one(req, id), { requestId: requestIdOf(req) });
    await this.audit.record(req, { action: 'webhook_endpoint.deleted', targetId: id });
  }
}
