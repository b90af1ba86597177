import type { DataSource } from 'typeorm';
import type { ConversationStanding } from './check-answering.rules.js';

/** Whether each of the account's conversations is recorded, and the refusal remembered for it (key: conversation id). */
export async function findStanding(db: DataSource, accountId: string, conversationIds: readonly string[]): Promise<Map<string, ConversationStanding>> {
  const rows: Array<{ id: string; recorded: boolean; agent_id: string | null; status: string | null }> = await db.query(
    `SELECT k.id, r.agent_id, r.status,
            EXISTS (SELECT 1 FROM conversations.conversations c WHERE c.account_id = $1 AND c.id = k.id) AS recorded
       FROM unnest($2::text[]) AS k(id)
       LEFT JOIN conversations.refused_conversations r ON r.account_id = $1 AND r.conversation_id = k.id`,
    [accountId, conversationIds],
  );
  return new Map(rows.map((r) => [r.id, { recorded: r.recorded, refused: r.agent_id === null ? undefined : { agent_id: r.agent_id, status: r.status! } }]));
}
