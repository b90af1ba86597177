import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ConversationsRpc, type HealthReply } from '@voice/contracts';
import { fail, readReplicaStatus } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';

@Controller()
export class HealthMessageController {
  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext) {}

  @MessagePattern(ConversationsRpc.health)
  async health(): Promise<HealthReply> {
    try {
      await this.ctx.dataSource.query('SELECT 1');
    } catch {
      fail('service_unavailable', 'conversations-service cannot reach its database.');
    }
    const reads = this.ctx.reads;
    return { service: 'conversations-service', status: 'ok', ...(reads.configured && { read_replica: readReplicaStatus(reads.health()) }) };
  }
}
