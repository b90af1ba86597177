import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { AgentsRpc, type HealthReply } from '@voice/contracts';
import { readReplicaStatus } from '@voice/service-kit';
import { AgentStore } from '../agent/agent.store.js';

@Controller()
export class HealthMessageController {
  constructor(private readonly store: AgentStore) {}

  /** Answers only when the database answers too. */
  @MessagePattern(AgentsRpc.health)
  async health(): Promise<HealthReply> {
    await this.store.ping();
    const replica = this.store.readReplica();
    return { service: 'agents-service', status: 'ok', ...(replica && { read_replica: readReplicaStatus(replica) }) };
  }
}
