import { AgentEventTypes, defaultPiiRedaction, defaultRetention, type AgentIntegrationEvent } from '@voice/contracts';
import type { DataSource, QueryRunner } from 'typeorm';
import type { KnownAgent } from '../conversation/agent-policy.rules.js';

/** The agents as known now (their status history included), by id; an agent not known yet is absent. */
export async function findAgents(db: DataSource | QueryRunner, agentIds: string[]): Promise<Map<string, KnownAgent>> {
  if (agentIds.length === 0) return new Map();
  const rows: KnownAgent[] = await db.query(
    `SELECT a.agent_id, a.account_id, a.name, a.voice_platform, a.recording_enabled, a.transcription_enabled, a.pii_redaction, a.store_content,
            a.status, a.version,
            coalesce((SELECT json_agg(json_build_object('version', h.version, 'status', h.status,
                                                        'since_ms', floor(extract(epoch FROM h.since) * 1000)))
                        FROM conversations.agent_status_history h WHERE h.agent_id = a.agent_id), '[]'::json) AS history
       FROM conversations.agents a WHERE a.agent_id = ANY($1::text[])`,
    [agentIds],
  );
  return new Map(rows.map((r) => [r.agent_id, r]));
}

/**
 * Keep only the newest state of each agent: events carry the full snapshot and
 * their stream version, so an older or repeated event changes nothing. Every
 * event that can change the status is also kept in the status history (an
 * update or a number assigned by the platform leaves the status as it was),
 * with the time it happened.
 */
export async function rememberAgent(db: DataSource | QueryRunner, event: AgentIntegrationEvent): Promise<boolean> {
  const a = event.agent;
  const retention = a.retention ?? defaultRetention();
  const rows = await db.query(
    `INSERT INTO conversations.agents AS k (agent_id, account_id, name, voice_platform, recording_enabled, transcription_enabled,
                                            pii_redaction, store_content, retention_conversations_days, retention_recordings_days,
                                            status, version)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12)
     ON CONFLICT (agent_id) DO UPDATE SET
       account_id = EXCLUDED.account_id, name = EXCLUDED.name, voice_platform = EXCLUDED.voice_platform,
       recording_enabled = EXCLUDED.recording_enabled, transcription_enabled = EXCLUDED.transcription_enabled,
       pii_redaction = EXCLUDED.pii_redaction, store_content = EXCLUDED.store_content,
       retention_conversations_days = EXCLUDED.retention_conversations_days, retention_recordings_days = EXCLUDED.retention_recordings_days,
       status = EXCLUDED.status, version = EXCLUDED.version, updated_at = now()
     WHERE k.version < EXCLUDED.version
     RETURNING agent_id`,
    [
      a.agent_id, a.account_id, a.name, a.voice_platform, a.recording_enabled, a.transcription_enabled,
      JSON.stringify(a.pii_redaction ?? defaultPiiRedaction()), a.store_content ?? true,
      retention.conversations_days, retention.recordings_days, a.status, event.version,
    ],
  );
  if (event.type !== AgentEventTypes.updated && event.type !== AgentEventTypes.phoneNumberAssigned) {
    await db.query(
      `INSERT INTO conversations.agent_status_history (agent_id, version, status, since) VALUES ($1, $2, $3, $4::timestamptz)
       ON CONFLICT (agent_id, version) DO NOTHING`,
      [a.agent_id, event.version, a.status, event.occurred_at],
    );
  }
  return rows.length > 0;
}
