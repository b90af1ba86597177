import { ConversationsSchema1732240000000 } from './migrations/1732240000000-conversations-schema.js';
import { AccountTotals1732250000000 } from './migrations/1732250000000-account-totals.js';
import { ConversationTopics1732260000000 } from './migrations/1732260000000-conversation-topics.js';
import { ConversationSearch1732270000000 } from './migrations/1732270000000-conversation-search.js';
import { AccountScopedConversations1732280000000 } from './migrations/1732280000000-account-scoped-conversations.js';
import { ParkedEventsAndAgentStatus1732290000000 } from './migrations/1732290000000-parked-events-and-agent-status.js';
import { RefusedConversationsAndParkedReplay1732300000000 } from './migrations/1732300000000-refused-conversations-and-parked-replay.js';
import { ConversationCost1732310000000 } from './migrations/1732310000000-conversation-cost.js';
import { ParkedEventPublisherAccount1732320000000 } from './migrations/1732320000000-parked-event-publisher-account.js';
import { ListSortKeys1732330000000 } from './migrations/1732330000000-list-sort-keys.js';
import { ConversationCounts1732340000000 } from './migrations/1732340000000-conversation-counts.js';
import { ConversationChangeXid1732350000000 } from './migrations/1732350000000-conversation-change-xid.js';
import { AgentPrivacySettings1732365000000 } from './migrations/1732365000000-agent-privacy-settings.js';
import { ConversationChangesOutbox1764500000000 } from './migrations/1764500000000-conversation-changes-outbox.js';
import { DataRequestsAndTombstones1765700000000 } from './migrations/1765700000000-data-requests-and-tombstones.js';
import { DataRequestEvents1765720000000 } from './migrations/1765720000000-data-request-events.js';
import { AgentRetention1765710000000 } from './migrations/1765710000000-agent-retention.js';
import { PartitionedByAccount1766000000000 } from './migrations/1766000000000-partitioned-by-account.js';
import { ConversationDayCounts1767000000000 } from './migrations/1767000000000-conversation-day-counts.js';
import { StatusTopicCounts1767100000000 } from './migrations/1767100000000-status-topic-counts.js';
import { DurationCounts1767200000000 } from './migrations/1767200000000-duration-counts.js';
import { TopicDayCounts1767300000000 } from './migrations/1767300000000-topic-day-counts.js';
import { HourCounts1767400000000 } from './migrations/1767400000000-hour-counts.js';
import { AgentStatusCoveringIndex1767500000000 } from './migrations/1767500000000-agent-status-covering-index.js';
import { AgentStatusSentimentIndex1767600000000 } from './migrations/1767600000000-agent-status-sentiment-index.js';

export const CONVERSATIONS_SCHEMA = 'conversations';
export const conversationsMigrations = [
  ConversationsSchema1732240000000, AccountTotals1732250000000, ConversationTopics1732260000000, ConversationSearch1732270000000,
  AccountScopedConversations1732280000000, ParkedEventsAndAgentStatus1732290000000, RefusedConversationsAndParkedReplay1732300000000,
  ConversationCost1732310000000, ParkedEventPublisherAccount1732320000000, ListSortKeys1732330000000,
  ConversationCounts1732340000000, ConversationChangeXid1732350000000, AgentPrivacySettings1732365000000,
  ConversationChangesOutbox1764500000000, DataRequestsAndTombstones1765700000000,
  AgentRetention1765710000000, DataRequestEvents1765720000000, PartitionedByAccount1766000000000,
  ConversationDayCounts1767000000000, StatusTopicCounts1767100000000, DurationCounts1767200000000,
  TopicDayCounts1767300000000, HourCounts1767400000000, AgentStatusCoveringIndex1767500000000, AgentStatusSentimentIndex1767600000000,
];
