import { Injectable } from '@nestjs/common';
import type { OutboundDeliveryDetail, OutboundDeliveryView, PageResult, RawQuery, RecoverDeliveriesReply } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { ENDPOINT_ID } from '../webhook-endpoints/webhook-endpoint.rules.js';
import { DELIVERY_ID, parseDeliveryListQuery, parseRecoverBody } from './delivery-log.rules.js';
import { DeliveryLogStore } from './delivery-log.store.js';

const endpointNotFound = (): never => fail('not_found', 'No webhook endpoint with this id.', { field: 'id' });
const deliveryNotFound = (): never => fail('not_found', 'No delivery with this id for this endpoint.', { field: 'delivery_id' });

/** An endpoint's deliveries: list, read with every attempt, resend one, recover the failed ones. */
@Injectable()
export class DeliveryLogHandler {
  constructor(private readonly store: DeliveryLogStore) {}

  async list(accountId: string, endpointId: string, query: RawQuery): Promise<PageResult<OutboundDeliveryView>> {
    await this.endpoint(accountId, endpointId);
    const params = parseDeliveryListQuery(query);
    if ('problem' in params) fail(params.problem.code, params.problem.message, params.problem);
    const { items, total } = await this.store.page(accountId, endpointId, params);
    return { items, total, page: params.page, per_page: params.per_page };
  }

  async get(accountId: string, endpointId: string, deliveryId: string): Promise<OutboundDeliveryDetail> {
    await this.endpoint(accountId, endpointId);
    if (!DELIVERY_ID.test(deliveryId)) deliveryNotFound();
    return (await this.store.find(accountId, endpointId, deliveryId)) ?? deliveryNotFound();
  }

  async resend(accountId: string, endpointId: string, deliveryId: string): Promise<OutboundDeliveryDetail> {
    await this.endpoint(accountId, endpointId);
    if (!DELIVERY_ID.test(deliveryId) || !(await this.store.resend(accountId, endpointId, deliveryId))) deliveryNotFound();
    return (await this.store.find(accountId, endpointId, deliveryId)) ?? deliveryNotFound();
  }

  async recover(accountId: string, endpointId: string, body: unknown): Promise<RecoverDeliveriesReply> {
    await this.endpoint(accountId, endpointId);
    const parsed = parseRecoverBody(body, new Date());
    if ('problem' in parsed) fail(parsed.problem.code, parsed.problem.message, parsed.problem);
    return { deliveries: await this.store.recover(accountId, endpointId, parsed.since) };
  }

  private async endpoint(accountId: string, endpointId: string): Promise<void> {
    if (!ENDPOINT_ID.test(endpointId) || !(await this.store.endpointExists(accountId, endpointId))) endpointNotFound();
  }
}
