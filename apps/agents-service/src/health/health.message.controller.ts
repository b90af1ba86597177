import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { AgentsRpc, type HealthReply } from '@voice/contracts';
import { DataSource } from 'typeorm';

@Controller()
export class HealthMessageController {
  constructor(private readonly dataSource: DataSource) {}

  /** Answers only when the database answers too. */
  @MessagePattern(AgentsRpc.health)
  async health(): Promise<HealthReply> {
    await this.dataSource.query('SELECT 1');
    return { service: 'agents-service', status: 'ok' };
  }
}
