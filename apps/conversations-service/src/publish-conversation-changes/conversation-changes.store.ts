/** The read model's outbox (migration 1764500000000): what the relay reads, and what it deletes once published. */
import type { CommittedPosition } from '@voice/service-kit';
import type { DataSource } from 'typeorm';
import type { ConversationState } from '../conversation/conversation.evolve.js';

export interface RecordedChange extends CommittedPosition {
  account_id: string;
  conversation_id: string;
  version: number;
  created: boolean;
  /** The list item, timestamps as PostgreSQL wrote them into JSON. */
  item: Record<string, unknown>;
}

/** The outbox as the relay reads it (service-kit OutboxStreamPublisher): the table and the columns of a RecordedChange. */
export const CONVERSATION_CHANGES_OUTBOX = {
  table: 'conversations.conversation_changes',
  columns: 'r.account_id, r.conversation_id, r.version, r.created, r.item',
};

/** The newest change recorded so far (its position), or null when none waits. */
export async function newestRecordedChange(db: DataSource): Promise<string | null> {
  const [row] = await db.query('SELECT max(global_position)::text AS position FROM conversations.conversation_changes');
  return row.position;
}

/** Whether a change at or before this position still waits to be published. */
export async function changesWaitUpTo(db: DataSource, position: string): Promise<boolean> {
  const [row] = await db.query('SELECT EXISTS (SELECT 1 FROM conversations.conversation_changes WHERE global_position <= $1::bigint) AS waiting', [position]);
  return row.waiting;
}

/** The stored row a call's full record is made from (the detail query's own columns). */
export interface EndedConversationRow {
  account_id: string;
  id: string;
  state: ConversationState;
  agent_name: string | null;
  voice_platform: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The records of these conversations as they stand now, in one read; a conversation gone meanwhile is absent. */
export async function readEndedConversations(db: DataSource, keys: ReadonlyArray<{ account_id: string; conversation_id: string }>): Promise<EndedConversationRow[]> {
  if (keys.length === 0) return [];
  return db.query(
    `SELECT c.account_id, c.id, c.detail AS state, a.name AS agent_name, c.voice_platform, c.created_at, c.updated_at
       FROM unnest($1::text[], $2::text[]) AS k(account_id, id)
       JOIN conversations.conversations c ON c.account_id = k.account_id AND c.id = k.id
       LEFT JOIN conversations.agents a ON a.agent_id = c.agent_id`,
    [keys.map((key) => key.account_id), keys.map((key) => key.conversation_id)],
  );
}
