import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AgentsRpc, type VerifyAgentOwnershipReply, type VerifyAgentOwnershipRequest } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { DataSource } from 'typeorm';

/** One call-event batch holds at most 500 events, so this bounds the ids comfortably. */
const MAX_IDS = 1000;

/**
 * Which ids are not agents of the account. Deleted agents still belong to it:
 * a call that was running when its agent was deleted must still be recorded.
 * A read of the read model, so no command/query dispatch is involved.
 */
@Controller()
export class VerifyOwnershipMessageController {
  constructor(private readonly dataSource: DataSource) {}

  @MessagePattern(AgentsRpc.verifyOwnership)
  async verify(@Payload() request: VerifyAgentOwnershipRequest): Promise<VerifyAgentOwnershipReply> {
    const ids = request?.agent_ids;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string') || ids.length > MAX_IDS) {
      fail('invalid_request', `agent_ids must be an array of at most ${MAX_IDS} strings.`);
    }
    const unique = [...new Set(ids)];
    if (unique.length === 0) return { unknown_agent_ids: [] };
    const rows: Array<{ id: string }> = await this.dataSource.query(
      'SELECT id FROM agents.agents WHERE account_id = $1 AND id = ANY($2::text[])',
      [request.account_id, unique],
    );
    const owned = new Set(rows.map((r) => r.id));
    return { unknown_agent_ids: unique.filter((id) => !owned.has(id)) };
  }
}
