import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  NotificationsRpc, type EndpointDeliveryRequest, type ListEndpointDeliveriesRequest, type OutboundDeliveryDetail, type OutboundDeliveryView,
  type PageResult, type RecoverDeliveriesReply, type RecoverDeliveriesRequest,
} from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { DeliveryLogHandler } from './delivery-log.handler.js';

const text = (value: unknown) => (typeof value === 'string' ? value : '');
function accountIdOf(request: { account_id?: unknown } | undefined): string {
  if (typeof request?.account_id !== 'string') fail('invalid_request', 'account_id is required.');
  return request.account_id;
}

@Controller()
export class DeliveryLogMessageController {
  constructor(private readonly log: DeliveryLogHandler) {}

  @MessagePattern(NotificationsRpc.listDeliveries)
  list(@Payload() request: ListEndpointDeliveriesRequest): Promise<PageResult<OutboundDeliveryView>> {
    return this.log.list(accountIdOf(request), text(request.endpoint_id), request.query ?? {});
  }

  @MessagePattern(NotificationsRpc.getDelivery)
  get(@Payload() request: EndpointDeliveryRequest): Promise<OutboundDeliveryDetail> {
    return this.log.get(accountIdOf(request), text(request.endpoint_id), text(request.delivery_id));
  }

  @MessagePattern(NotificationsRpc.resendDelivery)
  resend(@Payload() request: EndpointDeliveryRequest): Promise<OutboundDeliveryDetail> {
    return this.log.resend(accountIdOf(request), text(request.endpoint_id), text(request.delivery_id));
  }

  @MessagePattern(NotificationsRpc.recoverDeliveries)
  recover(@Payload() request: RecoverDeliveriesRequest): Promise<RecoverDeliveriesReply> {
    return this.log.recover(accountIdOf(request), text(request.endpoint_id), request.body);
  }
}
