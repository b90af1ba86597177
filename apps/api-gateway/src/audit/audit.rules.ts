/** What the audit log records of each change (pure): the entries an agent event makes, and who an actor is. */
import { AgentEventTypes, PRIVACY_SETTING_FIELDS, type AuditAction, type DataRequestSettled, type OriginatedAgentEvent } from '@voice/contracts';

/** Entries older than this are swept; the database refuses to delete younger ones. */
export const AUDIT_RETENTION_DAYS = 365;

export type AuditActorRecord = { type: 'api_key'; key_id: string } | { type: 'admin_token' } | { type: 'system' };

/** An entry to append. `source_id` makes a redelivered source write nothing twice. */
export interface AuditEntry {
  account_id: string;
  action: AuditAction;
  actor: AuditActorRecord;
  target_id: string | null;
  changed_fields: string[] | null;
  request_id: string | null;
  client_address: string | null;
  source_id?: string;
  /** When the change happened (the event's time); absent: now. */
  occurred_at?: string;
}

const AGENT_ACTIONS: Partial<Record<string, AuditAction>> = {
  [AgentEventTypes.created]: 'agent.created',
  [AgentEventTypes.updated]: 'agent.updated',
  [AgentEventTypes.paused]: 'agent.paused',
  [AgentEventTypes.resumed]: 'agent.resumed',
  [AgentEventTypes.deleted]: 'agent.deleted',
};

/** An agent event type the audit log records (the stream's notices and a number assigned by the platform are not). */
export function isAuditedAgentEventType(type: unknown): boolean {
  return typeof type === 'string' && Object.hasOwn(AGENT_ACTIONS, type);
}

/**
 * The entries of one agent event: its action, by whom (the key the gateway carried on the command; the system's
 * own when none did), and for an update the names of the fields it changed. An update that touches a privacy
 * setting (redaction, retention, zero retention) also makes an `agent.privacy_settings_changed` entry naming only
 * those, so they can be listed on their own.
 */
export function agentEventEntries(event: OriginatedAgentEvent): AuditEntry[] {
  // An event recorded before the agents' events carried who made them has no origin: its actor is unknown, and
  // the log, which starts when it was deployed, does not guess one.
  const origin = event.origin;
  if (!isAuditedAgentEventType(event.type) || !origin) return [];
  const action = AGENT_ACTIONS[event.type]!;
  const base = {
    account_id: event.agent.account_id,
    actor: origin.actor_key_id ? { type: 'api_key' as const, key_id: origin.actor_key_id } : { type: 'system' as const },
    target_id: event.agent.agent_id,
    request_id: origin.request_id,
    client_address: origin.client_address,
    occurred_at: event.occurred_at,
  };
  const changed = action === 'agent.updated' ? [...(event.changed_fields ?? [])] : null;
  const entries: AuditEntry[] = [{ ...base, action, changed_fields: changed, source_id: event.id }];
  const privacy = (changed ?? []).filter((field) => (PRIVACY_SETTING_FIELDS as readonly string[]).includes(field));
  if (privacy.length > 0) {
    entries.push({ ...base, action: 'agent.privacy_settings_changed', changed_fields: privacy, source_id: `${event.id}:privacy` });
  }
  return entries;
}

/**
 * A data request's end, at the time it settled, once per settlement event: the system's, with no request id or
 * address, as no API request settles it (the request that created it is its data_request.created entry).
 */
export function dataRequestSettledEntry(event: DataRequestSettled): AuditEntry {
  return {
    account_id: event.account_id,
    action: event.status === 'completed' ? 'data_request.completed' : 'data_request.failed',
    actor: { type: 'system' },
    target_id: event.request_id,
    changed_fields: null,
    request_id: null,
    client_address: null,
    source_id: event.event_id,
    occurred_at: event.settled_at,
  };
}
