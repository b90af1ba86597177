import { Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { VOICE_PLATFORMS, WEBHOOK_DELIVERY_OUTCOMES, type WebhookDeliveryDetail } from '@voice/contracts';
import { RequireScope } from '../auth/access.decorators.js';
import { ApiFailure, apiFailure } from '../http/api-failure.js';
import { listEnvelope, success } from '../http/envelope.js';
import { callerOf, requestIdOf } from '../http/gateway-request.js';
import { enumOf, string } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiFilter, ApiIdParam, ApiPagination, ApiRoute } from '../openapi/route-docs.js';
import { bodyView, WebhookDeliveriesStore, type StoredDelivery } from './webhook-deliveries.store.js';
import { parseDeliveryQuery } from './webhook-deliveries.params.js';
import { isDeliveryId } from './webhook-ingest.decider.js';
import { WebhookIngestHandler } from './webhook-ingest.handler.js';

/** Every verified webhook delivery, with its body as received, its outcome, and replay. */
@Controller('v1/webhook-deliveries')
export class WebhookDeliveriesController {
  constructor(
    private readonly deliveries: WebhookDeliveriesStore,
    private readonly ingest: WebhookIngestHandler,
  ) {}

  @Get()
  @RequireScope('integrations:read')
  @ApiRoute('Webhooks', 'List webhook deliveries', 'Verified deliveries of the account, newest first, without their bodies. Refused (unverified) deliveries are only counted, on the integration.')
  @ApiPagination()
  @ApiFilter('platform', enumOf(VOICE_PLATFORMS), 'Only this platform’s deliveries.')
  @ApiFilter('outcome', enumOf(WEBHOOK_DELIVERY_OUTCOMES), 'accepted, duplicate, ignored or failed.')
  @ApiFilter('conversation_id', string({ minLength: 1, maxLength: 128 }), 'Deliveries of this conversation.')
  @ApiFilter('start_date', string({ maxLength: 35 }), 'Received on or after (ISO 8601 date or timestamp).')
  @ApiFilter('end_date', string({ maxLength: 35 }), 'Received on or before (a date alone: the whole day).')
  @ApiEnvelope(200, 'WebhookDelivery', { description: 'One page of deliveries.', list: true })
  @ApiErrors('invalid_parameter', 'invalid_date_format')
  async list(@Req() req: FastifyRequest, @Query() query: Record<string, unknown>) {
    const parsed = parseDeliveryQuery(query);
    if (!parsed.ok) throw new ApiFailure(parsed.problem);
    const { filters, page, perPage } = parsed.query;
    const { items, total } = await this.deliveries.list(callerOf(req).account.id, filters, perPage, (page - 1) * perPage);
    return listEnvelope(req, { items, total, page, per_page: perPage });
  }

  @Get(':id')
  @RequireScope('integrations:read')
  @ApiRoute('Webhooks', 'Get a webhook delivery', 'With the body exactly as received (kept for the retention period, 30 days by default).')
  @ApiIdParam('Delivery id (whd_…).')
  @ApiEnvelope(200, 'WebhookDeliveryDetail', { description: 'The delivery.' })
  @ApiErrors('not_found')
  async get(@Req() req: FastifyRequest, @Param('id') id: string) {
    const found = await this.owned(callerOf(req).account.id, id);
    const detail: WebhookDeliveryDetail = { ...found.item, ...bodyView(found.body) };
    return success(req, detail);
  }

  @Post(':id/replay')
  @RequireScope('integrations:write')
  @HttpCode(202)
  @ApiRoute(
    'Webhooks',
    'Replay a webhook delivery',
    'Maps and records the stored body again, as a new delivery with replay_of set (e.g. an ignored delivery once its platform agent is linked). ' +
      'A replay of an accepted delivery is a duplicate: nothing is recorded twice.',
  )
  @ApiIdParam('Delivery id (whd_…).')
  @ApiEnvelope(202, 'WebhookDelivery', { description: 'The replay, with its outcome.' })
  @ApiErrors('not_found')
  async replay(@Req() req: FastifyRequest, @Param('id') id: string) {
    const accountId = callerOf(req).account.id;
    const found = await this.owned(accountId, id);
    const replay = await this.ingest.process({
      accountId,
      integrationId: found.item.integration_id,
      platform: found.item.platform,
      body: found.body,
      replayOf: id,
      requestId: requestIdOf(req),
    });
    await this.deliveries.noteReplay(accountId, id, { id: replay.id, outcome: replay.outcome, at: replay.received_at });
    return success(req, replay);
  }

  /** The account's delivery, or 404 (another account's is as unknown as one that never was). */
  private async owned(accountId: string, id: string): Promise<StoredDelivery> {
    const found = isDeliveryId(id) ? await this.deliveries.find(accountId, id) : undefined;
    if (!found) throw apiFailure('not_found', `No webhook delivery ${id} in this account.`);
    return found;
  }
}
