import type { DataSource } from 'typeorm';
import type { ConversationState } from './conversation.evolve.js';

export interface StoredConversation {
  state: ConversationState;
  agent_name: string | null;
  /** The agent's platform when the conversation's first event was recorded (switching platforms later does not rewrite history). */
  voice_platform: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * One conversation of the account, or undefined (also for another account's id: existence is not revealed).
 * Conversation ids are the platforms', unique only within an account. The agent's name is its current one.
 */
export async function readConversation(db: DataSource, accountId: string, conversationId: string): Promise<StoredConversation | undefined> {
  const [row] = await db.query(
    `SELECT c.detail AS state, a.name AS agent_name, c.voice_platform, c.created_at, c.updated_at
       FROM conversations.conversations c LEFT JOIN conversations.agents a ON a.agent_id = c.agent_id
      WHERE c.id = $1 AND c.account_id = $2`,
    [conversationId, accountId],
  );
  return row;
}
