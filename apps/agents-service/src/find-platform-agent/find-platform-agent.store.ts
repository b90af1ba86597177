import { Injectable } from '@nestjs/common';
import type { VoicePlatform } from '@voice/contracts';
import { DataSource } from 'typeorm';

/** Agents by the ids voice platforms gave them (agents.platform_agent_links: every id ever given, kept). */
@Injectable()
export class FindPlatformAgentStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Our agent id for each given platform agent id that one of the account's agents holds or held. */
  async agentsByPlatformId(accountId: string, platform: VoicePlatform, platformAgentIds: readonly string[]): Promise<Record<string, string>> {
    const rows: Array<{ agent_id: string; platform_agent_id: string }> = await this.dataSource.query(
      `SELECT agent_id, platform_agent_id FROM agents.platform_agent_links
        WHERE platform = $2 AND platform_agent_id = ANY($3::text[]) AND account_id = $1`,
      [accountId, platform, platformAgentIds],
    );
    return Object.fromEntries(rows.map((row) => [row.platform_agent_id, row.agent_id]));
  }
}
