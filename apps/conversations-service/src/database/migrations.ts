import { ConversationsSchema1732240000000 } from './1732240000000-conversations-schema.js';
import { AccountTotals1732250000000 } from './1732250000000-account-totals.js';
import { ConversationTopics1732260000000 } from './1732260000000-conversation-topics.js';
import { ConversationSearch1732270000000 } from './1732270000000-conversation-search.js';

export const CONVERSATIONS_SCHEMA = 'conversations';
export const conversationsMigrations = [
  ConversationsSchema1732240000000, AccountTotals1732250000000, ConversationTopics1732260000000, ConversationSearch1732270000000,
];
