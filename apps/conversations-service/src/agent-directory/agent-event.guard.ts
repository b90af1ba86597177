import { PII_REDACTION_CATEGORIES, RETENTION_DAYS, type AgentIntegrationEvent } from '@voice/contracts';

/** The agents relay is ours, but a consumer must not crash on a malformed message. */
export function isAgentIntegrationEvent(value: unknown): value is AgentIntegrationEvent {
  const e = value as Partial<AgentIntegrationEvent> | undefined;
  const a = e?.agent;
  return (
    typeof e === 'object' && e !== null &&
    typeof e.id === 'string' && typeof e.type === 'string' && Number.isInteger(e.version) &&
    typeof a === 'object' && a !== null &&
    typeof a.agent_id === 'string' && typeof a.account_id === 'string' && typeof a.name === 'string' &&
    typeof a.voice_platform === 'string' && typeof a.status === 'string' &&
    typeof a.recording_enabled === 'boolean' && typeof a.transcription_enabled === 'boolean' &&
    (a.store_content === undefined || typeof a.store_content === 'boolean') &&
    (a.pii_redaction === undefined || isPiiRedaction(a.pii_redaction)) &&
    (a.retention === undefined || isRetention(a.retention))
  );
}

function isRetention(value: unknown): boolean {
  const r = value as { conversations_days?: unknown; recordings_days?: unknown } | null;
  return typeof r === 'object' && r !== null && isRetentionDays(r.conversations_days) && isRetentionDays(r.recordings_days);
}

function isRetentionDays(value: unknown): boolean {
  return value === null || (Number.isInteger(value) && (value as number) >= RETENTION_DAYS.min && (value as number) <= RETENTION_DAYS.max);
}

function isPiiRedaction(value: unknown): boolean {
  const r = value as { enabled?: unknown; categories?: unknown } | null;
  return typeof r === 'object' && r !== null && typeof r.enabled === 'boolean' &&
    Array.isArray(r.categories) && r.categories.every((c) => (PII_REDACTION_CATEGORIES as readonly unknown[]).includes(c));
}
