import { Injectable } from '@nestjs/common';
import { AgentsRpc, type AgentPrivacySettings, type FindByPlatformAgentReply, type FindByPlatformAgentRequest, type VoicePlatform } from '@voice/contracts';
import { ServiceClient } from '../rpc/service-client.js';
import { RecentAnswers } from '../caching/recent-answers.js';

/**
 * A link, once found, is reused this long: a platform agent id belongs to one of our agents for good (deleted agents
 * included). The agent's privacy settings come with it, so a change of them reaches the delivery log within this time.
 */
const LINK_TTL_MS = 60_000;

/** Our agent a platform agent id is, and its privacy settings (absent when agents-service did not say them). */
export interface LinkedAgent {
  agentId: string;
  privacy?: AgentPrivacySettings;
}
const MAX_ENTRIES = 50_000;

/**
 * Which of the account's agents a platform agent id is (agents-service answers). Found links are cached
 * briefly — every delivery of a call names the same agent — but an unknown id never is: it must be found
 * the moment its agent is linked.
 */
@Injectable()
export class PlatformAgentDirectory {
  private readonly links = new RecentAnswers<LinkedAgent>(MAX_ENTRIES);

  constructor(private readonly services: ServiceClient) {}

  async agentOf(accountId: string, platform: VoicePlatform, platformAgentId: string, requestId: string): Promise<LinkedAgent | undefined> {
    const key = `${accountId}\u0000${platform}\u0000${platformAgentId}`;
    const cached = this.links.get(key);
    if (cached && cached.ageMs < LINK_TTL_MS) return cached.value;
    const request: FindByPlatformAgentRequest = { account_id: accountId, platform, platform_agent_ids: [platformAgentId] };
    const { agents, privacy } = await this.services.send<FindByPlatformAgentReply>(AgentsRpc.findByPlatformAgent, request, { requestId });
    const agentId = agents[platformAgentId];
    if (!agentId) {
      this.links.forget(key);
      return undefined;
    }
    const linked: LinkedAgent = { agentId, privacy: privacy?.[agentId] };
    this.links.remember(key, linked);
    return linked;
  }
}
