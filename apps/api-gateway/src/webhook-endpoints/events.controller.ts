import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { NotificationsRpc, OUTBOUND_EVENT_TYPES, type GetEventRequest, type ListEventsRequest, type OutboundEvent, type PageResult, type RawQuery } from '@voice/contracts';
import { RequireScope } from '../auth/access.decorators.js';
import { listEnvelope, success } from '../http/envelope.js';
import { callerOf, requestIdOf } from '../http/gateway-request.js';
import { dateTime, enumOf, string } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiFilter, ApiIdParam, ApiPagination, ApiRoute } from '../openapi/route-docs.js';
import { ServiceClient } from '../rpc/service-client.js';

/** The account's outbound events, as their deliveries send them. */
@Controller('v1/events')
export class EventsController {
  constructor(private readonly services: ServiceClient) {}

  @Get()
  @RequireScope('webhooks:read')
  @ApiRoute('Events', 'List events', 'Newest first: every event recorded for the account, whether or not an endpoint wanted it.')
  @ApiPagination()
  @ApiFilter('type', enumOf(OUTBOUND_EVENT_TYPES), 'Only events of this type.')
  @ApiFilter('conversation_id', string({ maxLength: 128 }), 'Only this conversation’s events.')
  @ApiFilter('agent_id', string({ maxLength: 128 }), 'Only this agent’s events.')
  @ApiFilter('created_after', { ...dateTime, maxLength: 40 }, 'Only events recorded at or after this instant.')
  @ApiFilter('created_before', { ...dateTime, maxLength: 40 }, 'Only events recorded before this instant.')
  @ApiEnvelope(200, 'OutboundEvent', { description: 'One page of events.', list: true })
  @ApiErrors('invalid_parameter', 'invalid_date_format')
  async list(@Req() req: FastifyRequest, @Query() query: RawQuery) {
    const payload: ListEventsRequest = { account_id: callerOf(req).account.id, query: { ...query } };
    return listEnvelope(req, await this.services.send<PageResult<OutboundEvent>>(NotificationsRpc.listEvents, payload, { requestId: requestIdOf(req) }));
  }

  @Get(':id')
  @RequireScope('webhooks:read')
  @ApiRoute('Events', 'Get an event', 'The body every delivery of it sends.')
  @ApiIdParam('Event id (evt_…): the webhook-id header of its deliveries.')
  @ApiEnvelope(200, 'OutboundEvent', { description: 'The event.' })
  @ApiErrors('not_found')
  async get(@Req() req: FastifyRequest, @Param('id') id: string) {
    const payload: GetEventRequest = { account_id: callerOf(req).account.id, event_id: id };
    return success(req, await this.services.send<OutboundEvent>(NotificationsRpc.getEvent, payload, { requestId: requestIdOf(req) }));
  }
}
