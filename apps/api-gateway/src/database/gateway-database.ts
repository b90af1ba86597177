import type { DataSource } from 'typeorm';
import { openDatabase } from '@voice/service-kit';
import { CreateAccountsAndApiKeys1763800000000 } from './migrations/1763800000000-create-accounts-and-api-keys.js';
import { TypedTextIds1763800100000 } from './migrations/1763800100000-typed-text-ids.js';
import { WebhookDeliveries1764200000000 } from './migrations/1764200000000-webhook-deliveries.js';
import { IdempotencyKeys1764300000000 } from './migrations/1764300000000-idempotency-keys.js';
import { RateLimitBuckets1764400000000 } from './migrations/1764400000000-rate-limit-buckets.js';
import { ConversationStreams1764500000000 } from './migrations/1764500000000-conversation-streams.js';
import { RateLimitLeases1764560000000 } from './migrations/1764560000000-rate-limit-leases.js';
import { ErasedConversations1765700000000 } from './migrations/1765700000000-erased-conversations.js';
import { AuditEvents1764600000000 } from './migrations/1764600000000-audit-events.js';

export const GATEWAY_SCHEMA = 'gateway';

export function openGatewayDatabase(url: string, migrationUrl?: string): Promise<DataSource> {
  return openDatabase({
    url,
    migrationUrl,
    schema: GATEWAY_SCHEMA,
    migrations: [CreateAccountsAndApiKeys1763800000000, TypedTextIds1763800100000, WebhookDeliveries1764200000000, IdempotencyKeys1764300000000, RateLimitBuckets1764400000000, ConversationStreams1764500000000, RateLimitLeases1764560000000, AuditEvents1764600000000, ErasedConversations1765700000000],
    applicationName: 'api-gateway',
  });
}
