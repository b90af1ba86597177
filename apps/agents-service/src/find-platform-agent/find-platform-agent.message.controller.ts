import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AgentsRpc, isVoicePlatform, type FindByPlatformAgentReply, type FindByPlatformAgentRequest } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { FindPlatformAgentStore } from './find-platform-agent.store.js';

/** A webhook delivery names one platform agent; a few leave room for batched lookups. */
const MAX_IDS = 100;

/**
 * Which of the account's agents a platform knows under these ids. Scoped to the account of the
 * integration the delivery was signed for: a platform agent id of another account resolves to nothing.
 */
@Controller()
export class FindPlatformAgentMessageController {
  constructor(private readonly store: FindPlatformAgentStore) {}

  @MessagePattern(AgentsRpc.findByPlatformAgent)
  async find(@Payload() request: FindByPlatformAgentRequest): Promise<FindByPlatformAgentReply> {
    const ids = request?.platform_agent_ids;
    if (typeof request?.account_id !== 'string') fail('invalid_request', 'account_id is required.');
    if (!isVoicePlatform(request.platform)) fail('invalid_request', 'platform must be platform_a or platform_b.');
    if (!Array.isArray(ids) || ids.length > MAX_IDS || ids.some((id) => typeof id !== 'string')) {
      fail('invalid_request', `platform_agent_ids must be an array of at most ${MAX_IDS} strings.`);
    }
    if (ids.length === 0) return { agents: {}, privacy: {} };
    return this.store.agentsByPlatformId(request.account_id, request.platform, [...new Set(ids)]);
  }
}
