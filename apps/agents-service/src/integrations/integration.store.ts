/** All SQL of integrations: agents.integrations, and the live agents that hold one in use. */
import { Injectable } from '@nestjs/common';
import { AgentNoticeTypes, type StoredIntegration, type IntegrationStatus, type VoicePlatform } from '@voice/contracts';
import { appendToStream, inTransaction } from '@voice/service-kit';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AGENTS_SCHEMA } from '../database/agents-database.js';

/** The integration's own stream in agents.events: what the platforms said of its credentials. */
export function integrationStreamIdOf(integrationId: string): string {
  return `integration-${integrationId}`;
}

export function isIntegrationStream(streamId: string): boolean {
  return streamId.startsWith('integration-');
}

/** IntegrationCredentialsRefused as recorded. */
export interface IntegrationCredentialsRefusedData {
  account_id: string;
  integration_id: string;
  platform: VoicePlatform;
  reason: string;
  at: string;
}

/** The stored record as pg returns it: timestamps come back as Dates. */
type IntegrationRow = Omit<StoredIntegration, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date };

/** What a PUT stores: secrets already sealed. */
export interface IntegrationWrite {
  newId: string;
  accountId: string;
  platform: VoicePlatform;
  baseUrl: string;
  apiKeySealed: string;
  webhookSecretSealed: string;
  apiKeyHint: string;
  webhookSecretHint: string;
  status: IntegrationStatus;
  /** Where the platform delivers this integration's calls; null when the gateway gave no public address. */
  webhookUrl: string | null;
}

/** An integration as the platform sync uses it: secrets still sealed (opened by the caller, which holds the SecretBox). */
export interface SealedConnection {
  id: string;
  account_id: string;
  platform: VoicePlatform;
  base_url: string;
  api_key_sealed: string;
  webhook_url: string | null;
}

export type RemoveOutcome = { kind: 'removed' } | { kind: 'not_found' } | { kind: 'in_use'; liveAgents: number };

const COLUMNS = 'id, platform, base_url, api_key_hint, webhook_secret_hint, status, created_at, updated_at';

function toRecord(row: IntegrationRow): StoredIntegration {
  // Field by field, not a spread: this table also holds sealed secrets, and a column added to a query must not reach the API by itself.
  return {
    id: row.id,
    platform: row.platform,
    base_url: row.base_url,
    api_key_hint: row.api_key_hint,
    webhook_secret_hint: row.webhook_secret_hint,
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

@Injectable()
export class IntegrationStore {
  constructor(private readonly dataSource: DataSource) {}

  async find(accountId: string, platform: string): Promise<StoredIntegration | undefined> {
    const rows: IntegrationRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM agents.integrations WHERE account_id = $1 AND platform = $2`,
      [accountId, platform],
    );
    return rows[0] && toRecord(rows[0]);
  }

  /** The sealed webhook secret of an integration, by its id alone: the id in a webhook URL is all a delivery names. */
  async findSealedWebhookSecret(integrationId: string): Promise<{ id: string; account_id: string; platform: VoicePlatform; webhook_secret_sealed: string } | undefined> {
    const rows = await this.dataSource.query(
      'SELECT id, account_id, platform, webhook_secret_sealed FROM agents.integrations WHERE id = $1',
      [integrationId],
    );
    return rows[0];
  }

  async list(accountId: string): Promise<StoredIntegration[]> {
    const rows: IntegrationRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM agents.integrations WHERE account_id = $1 ORDER BY platform`,
      [accountId],
    );
    return rows.map(toRecord);
  }

  /**
   * Creates, or replaces everything but the id and created_at (the webhook URL keeps its integration id).
   * In the same transaction, every live agent of the account on the platform whose sync is not done is
   * queued again: new credentials are the change a refused or stuck sync waits for. When the webhook URL
   * changed (a new PUBLIC_URL), every live agent of the platform is queued: each must be told the new address.
   */
  async save(write: IntegrationWrite): Promise<StoredIntegration> {
    return this.dataSource.transaction(async (manager) => {
      const [before]: Array<{ webhook_url: string | null }> = await manager.query(
        'SELECT webhook_url FROM agents.integrations WHERE account_id = $1 AND platform = $2 FOR UPDATE',
        [write.accountId, write.platform],
      );
      // A new public address (PUBLIC_URL changed) must reach every agent already on the platform, synced or not.
      const webhookMoved = before !== undefined && write.webhookUrl !== null && before.webhook_url !== write.webhookUrl;
      const rows: IntegrationRow[] = await manager.query(
        `INSERT INTO agents.integrations
           (id, account_id, platform, base_url, api_key_sealed, webhook_secret_sealed, api_key_hint, webhook_secret_hint, status, webhook_url,
            created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now(), now())
         ON CONFLICT (account_id, platform) DO UPDATE SET
           base_url = EXCLUDED.base_url,
           api_key_sealed = EXCLUDED.api_key_sealed,
           webhook_secret_sealed = EXCLUDED.webhook_secret_sealed,
           api_key_hint = EXCLUDED.api_key_hint,
           webhook_secret_hint = EXCLUDED.webhook_secret_hint,
           status = EXCLUDED.status,
           webhook_url = coalesce(EXCLUDED.webhook_url, integrations.webhook_url),
           updated_at = now()
         RETURNING ${COLUMNS}`,
        [
          write.newId, write.accountId, write.platform, write.baseUrl, write.apiKeySealed, write.webhookSecretSealed,
          write.apiKeyHint, write.webhookSecretHint, write.status, write.webhookUrl,
        ],
      );
      await manager.query(
        `INSERT INTO agents.platform_sync_work (agent_id, account_id, wanted_version, attempt, not_before)
         SELECT id, account_id, version, 0, now() FROM agents.agents
          WHERE account_id = $1 AND voice_platform = $2 AND status <> 'deleted'
            AND ($3 OR coalesce((platform_sync->>'synced_version')::int, 0) < version)
         ON CONFLICT (agent_id) DO UPDATE SET attempt = 0, not_before = now()`,
        [write.accountId, write.platform, webhookMoved],
      );
      return toRecord(rows[0]);
    });
  }

  /** The platforms the account has an integration for. */
  async platforms(accountId: string): Promise<VoicePlatform[]> {
    const rows: Array<{ platform: VoicePlatform }> = await this.dataSource.query('SELECT platform FROM agents.integrations WHERE account_id = $1', [accountId]);
    return rows.map((r) => r.platform);
  }

  /** The integrations of the account, secrets sealed, by platform. */
  async connections(accountId: string): Promise<SealedConnection[]> {
    return this.dataSource.query(
      'SELECT id, account_id, platform, base_url, api_key_sealed, webhook_url FROM agents.integrations WHERE account_id = $1',
      [accountId],
    );
  }

  /**
   * The platform refused the stored key (a sync or the reconciliation met it): the integration shows it until a PUT
   * replaces the key. The first refusal of a key also records IntegrationCredentialsRefused on the integration's
   * stream in the same transaction (the relay announces it after the commit); a later one, while the status already
   * says so, records nothing. Only the key that was refused is marked: one replaced meanwhile is left alone.
   */
  async markInvalidCredentials(accountId: string, platform: VoicePlatform, apiKeySealed: string, reason: string): Promise<boolean> {
    return inTransaction(this.dataSource, async (runner) => {
      const [marked]: Array<{ id: string }> = await runner.query(
        `WITH marked AS (
           UPDATE agents.integrations SET status = 'invalid_credentials', updated_at = now()
            WHERE account_id = $1 AND platform = $2 AND api_key_sealed = $3 AND status <> 'invalid_credentials'
           RETURNING id)
         SELECT id FROM marked`,
        [accountId, platform, apiKeySealed],
      );
      if (!marked) return false;
      const streamId = integrationStreamIdOf(marked.id);
      // The row's lock (just updated) keeps a second marker of this integration out until this commits.
      const [{ version }]: Array<{ version: number }> = await runner.query(
        'SELECT coalesce(max(stream_version), 0)::int AS version FROM agents.events WHERE stream_id = $1',
        [streamId],
      );
      const data: IntegrationCredentialsRefusedData = { account_id: accountId, integration_id: marked.id, platform, reason, at: new Date().toISOString() };
      await appendToStream(runner, AGENTS_SCHEMA, streamId, version, [{ event_id: randomUUID(), type: AgentNoticeTypes.credentialsRefused, data }]);
      return true;
    });
  }

  /**
   * Deletes the integration unless live (not deleted) agents of the account use
   * its platform. Under the account_usage row lock agent creation takes, so an
   * agent created at the same time is either counted here or created after.
   */
  async removeUnlessInUse(accountId: string, platform: string): Promise<RemoveOutcome> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('INSERT INTO agents.account_usage (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [accountId]);
      await manager.query('SELECT 1 FROM agents.account_usage WHERE account_id = $1 FOR UPDATE', [accountId]);
      const [{ live }]: Array<{ live: number }> = await manager.query(
        `SELECT count(*)::int AS live FROM agents.agents WHERE account_id = $1 AND voice_platform = $2 AND status <> 'deleted'`,
        [accountId, platform],
      );
      const exists: unknown[] = await manager.query('SELECT 1 FROM agents.integrations WHERE account_id = $1 AND platform = $2', [accountId, platform]);
      if (exists.length === 0) return { kind: 'not_found' } as const;
      if (live > 0) return { kind: 'in_use', liveAgents: live } as const;
      await manager.query('DELETE FROM agents.integrations WHERE account_id = $1 AND platform = $2', [accountId, platform]);
      return { kind: 'removed' } as const;
    });
  }
}
