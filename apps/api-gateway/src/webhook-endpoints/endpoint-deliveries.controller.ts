import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  MAX_ID_LENGTH, NotificationsRpc, OUTBOUND_DELIVERY_STATUSES, type EndpointDeliveryRequest, type ListEndpointDeliveriesRequest, type OutboundDeliveryDetail,
  type OutboundDeliveryView, type PageResult, type RawQuery, type RecoverDeliveriesReply, type RecoverDeliveriesRequest,
} from '@voice/contracts';
import { RequireScope } from '../auth/access.decorators.js';
import { listEnvelope, success } from '../http/envelope.js';
import { callerOf, requestIdOf } from '../http/gateway-request.js';
import { enumOf, ref } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiFilter, ApiIdParam, ApiJsonBody, ApiPagination, ApiRoute } from '../openapi/route-docs.js';
import { ServiceClient } from '../rpc/service-client.js';

const ENDPOINT_ID = 'Webhook endpoint id (we_…).';
const ApiDeliveryParam = () =>
  ApiParam({ name: 'delivery_id', required: true, description: 'Delivery id (dlv_…).', schema: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH } });

/** An endpoint's delivery log: every delivery of an event to it, each attempt, resend and recover. */
@Controller('v1/webhook-endpoints/:id')
export class EndpointDeliveriesController {
  constructor(private readonly services: ServiceClient) {}

  private one(req: FastifyRequest, id: string, deliveryId: string): EndpointDeliveryRequest {
    return { account_id: callerOf(req).account.id, endpoint_id: id, delivery_id: deliveryId };
  }

  @Get('deliveries')
  @RequireScope('webhooks:read')
  @ApiRoute('Webhook endpoints', 'List an endpoint’s deliveries', 'Newest first: each event sent (or to send) to the endpoint, its status and next attempt.')
  @ApiIdParam(ENDPOINT_ID)
  @ApiPagination()
  @ApiFilter('status', enumOf(OUTBOUND_DELIVERY_STATUSES), 'pending (an attempt is due), succeeded, or failed (every attempt of the schedule failed).')
  @ApiEnvelope(200, 'OutboundDelivery', { description: 'One page of deliveries.', list: true })
  @ApiErrors('invalid_parameter', 'not_found')
  async list(@Req() req: FastifyRequest, @Param('id') id: string, @Query() query: RawQuery) {
    const payload: ListEndpointDeliveriesRequest = { account_id: callerOf(req).account.id, endpoint_id: id, query: { ...query } };
    return listEnvelope(req, await this.services.send<PageResult<OutboundDeliveryView>>(NotificationsRpc.listDeliveries, payload, { requestId: requestIdOf(req) }));
  }

  @Get('deliveries/:delivery_id')
  @RequireScope('webhooks:read')
  @ApiRoute('Webhook endpoints', 'Get a delivery with its attempts', 'Every attempt: when, the status code or the error, how long, the first 1 KiB of the answer.')
  @ApiIdParam(ENDPOINT_ID)
  @ApiDeliveryParam()
  @ApiEnvelope(200, 'OutboundDeliveryDetail', { description: 'The delivery.' })
  @ApiErrors('not_found')
  async get(@Req() req: FastifyRequest, @Param('id') id: string, @Param('delivery_id') deliveryId: string) {
    return success(req, await this.services.send<OutboundDeliveryDetail>(NotificationsRpc.getDelivery, this.one(req, id, deliveryId), { requestId: requestIdOf(req) }));
  }

  @Post('deliveries/:delivery_id/resend')
  @RequireScope('webhooks:write')
  @HttpCode(202)
  @ApiRoute('Webhook endpoints', 'Resend a delivery', 'A new attempt now, whatever the delivery’s state (the same event id, so a receiver can tell it already has it).')
  @ApiIdParam(ENDPOINT_ID)
  @ApiDeliveryParam()
  @ApiEnvelope(202, 'OutboundDeliveryDetail', { description: 'The delivery, due now.' })
  @ApiErrors('not_found')
  async resend(@Req() req: FastifyRequest, @Param('id') id: string, @Param('delivery_id') deliveryId: string) {
    return success(req, await this.services.send<OutboundDeliveryDetail>(NotificationsRpc.resendDelivery, this.one(req, id, deliveryId), { requestId: requestIdOf(req) }));
  }

  @Post('recover')
  @RequireScope('webhooks:write')
  @HttpCode(202)
  @ApiRoute('Webhook endpoints', 'Recover failed deliveries', 'Every failed delivery of the endpoint created since `since` is attempted again now.')
  @ApiIdParam(ENDPOINT_ID)
  @ApiJsonBody(ref('RecoverDeliveriesRequest'))
  @ApiEnvelope(202, 'RecoverDeliveriesReply', { description: 'How many deliveries were queued again.' })
  @ApiErrors('invalid_request', 'invalid_parameter', 'missing_required_field', 'invalid_date_format', 'not_found')
  async recover(@Req() req: FastifyRequest, @Param('id') id: string, @Body() body: unknown) {
    const payload: RecoverDeliveriesRequest = { account_id: callerOf(req).account.id, endpoint_id: id, body };
    return success(req, await this.services.send<RecoverDeliveriesReply>(NotificationsRpc.recoverDeliveries, payload, { requestId: requestIdOf(req) }));
  }
}
