import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AgentsRpc, type VerifyAgentOwnershipReply, type VerifyAgentOwnershipRequest } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { AgentStore } from '../agent/agent.store.js';

/** One call-event batch holds at most 500 events, so this bounds the ids comfortably. */
const MAX_IDS = 1000;

/**
 * Which ids are not agents of the account (deleted agents still are).
 * A read of the read model, so no command/query dispatch is involved.
 */
@Controller()
export class VerifyOwnershipMessageController {
  constructor(private readonly store: AgentStore) {}

  @MessagePattern(AgentsRpc.verifyOwnership)
  async verify(@Payload() request: VerifyAgentOwnershipRequest): Promise<VerifyAgentOwnershipReply> {
    const ids = request?.agent_ids;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string') || ids.length > MAX_IDS) {
      fail('invalid_request', `agent_ids must be an array of at most ${MAX_IDS} strings.`);
    }
    const unique = [...new Set(ids)];
    if (unique.length === 0) return { unknown_agent_ids: [] };
    return { unknown_agent_ids: await this.store.unknownAgentIds(request.account_id, unique) };
  }
}
