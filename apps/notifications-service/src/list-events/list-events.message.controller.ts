import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NotificationsRpc, type GetEventRequest, type ListEventsRequest, type OutboundEvent, type PageResult } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { EVENT_ID, parseEventListQuery } from './list-events.rules.js';
import { ListEventsStore } from './list-events.store.js';

function accountIdOf(request: { account_id?: unknown } | undefined): string {
  if (typeof request?.account_id !== 'string') fail('invalid_request', 'account_id is required.');
  return request.account_id;
}

/** GET /v1/events and /v1/events/{id}: what the account's endpoints were (or would have been) sent. */
@Controller()
export class ListEventsMessageController {
  constructor(private readonly store: ListEventsStore) {}

  @MessagePattern(NotificationsRpc.listEvents)
  async list(@Payload() request: ListEventsRequest): Promise<PageResult<OutboundEvent>> {
    const accountId = accountIdOf(request);
    const params = parseEventListQuery(request.query ?? {});
    if ('problem' in params) fail(params.problem.code, params.problem.message, params.problem);
    const { items, total } = await this.store.page(accountId, params);
    return { items, total, page: params.page, per_page: params.per_page };
  }

  @MessagePattern(NotificationsRpc.getEvent)
  async get(@Payload() request: GetEventRequest): Promise<OutboundEvent> {
    const accountId = accountIdOf(request);
    const id = typeof request.event_id === 'string' ? request.event_id : '';
    const event = EVENT_ID.test(id) ? await this.store.find(accountId, id) : undefined;
    return event ?? fail('not_found', 'No event with this id.', { field: 'id' });
  }
}
