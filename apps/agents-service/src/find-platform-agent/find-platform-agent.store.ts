import { Injectable } from '@nestjs/common';
import type { AgentPrivacySettings, FindByPlatformAgentReply, VoicePlatform } from '@voice/contracts';
import { DataSource } from 'typeorm';

/** Agents by the ids voice platforms gave them (agents.platform_agent_links: every id ever given, kept). */
@Injectable()
export class FindPlatformAgentStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Our agent id for each given platform agent id that one of the account's agents holds or held, and each agent's privacy settings. */
  async agentsByPlatformId(accountId: string, platform: VoicePlatform, platformAgentIds: readonly string[]): Promise<Required<FindByPlatformAgentReply>> {
    const rows: Array<{ agent_id: string; platform_agent_id: string } & (AgentPrivacySettings | { pii_redaction: null; store_content: null })> = await this.dataSource.query(
      `SELECT l.agent_id, l.platform_agent_id, a.pii_redaction, a.store_content
         FROM agents.platform_agent_links l LEFT JOIN agents.agents a ON a.id = l.agent_id
        WHERE l.platform = $2 AND l.platform_agent_id = ANY($3::text[]) AND l.account_id = $1`,
      [accountId, platform, platformAgentIds],
    );
    return {
      agents: Object.fromEntries(rows.map((row) => [row.platform_agent_id, row.agent_id])),
      privacy: Object.fromEntries(
        rows.flatMap((row) => (row.pii_redaction === null ? [] : [[row.agent_id, { pii_redaction: row.pii_redaction, store_content: row.store_content }]])),
      ),
    };
  }
}
