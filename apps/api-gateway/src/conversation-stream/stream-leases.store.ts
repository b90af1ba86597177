import { Inject, Injectable } from '@nestjs/common';
import { inTransaction } from '@voice/service-kit';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from '../tokens.js';

export interface StreamLimits {
  perKey: number;
  perAccount: number;
}

export type LeaseAnswer = { granted: true; id: string } | { granted: false; limit: number; current: number; per: 'key' | 'account' };

/**
 * Leases of open live streams, shared by every gateway replica (gateway.conversation_streams). Taken under the
 * account's transaction-scoped advisory lock, so two replicas opening streams at once count each other.
 */
@Injectable()
export class StreamLeasesStore {
  constructor(@Inject(DATA_SOURCE) private readonly db: DataSource) {}

  async acquire(accountId: string, apiKeyId: string, limits: StreamLimits, ttlMs: number): Promise<LeaseAnswer> {
    return inTransaction(this.db, async (runner) => {
      await runner.query(`SELECT pg_advisory_xact_lock(hashtext('conversation-streams:' || $1))`, [accountId]);
      await runner.query(`DELETE FROM gateway.conversation_streams WHERE account_id = $1 AND expires_at < now()`, [accountId]);
      const [{ key_streams: keyStreams, account_streams: accountStreams }]: Array<{ key_streams: number; account_streams: number }> = await runner.query(
        `SELECT (count(*) FILTER (WHERE api_key_id = $2))::int AS key_streams, count(*)::int AS account_streams
           FROM gateway.conversation_streams WHERE account_id = $1`,
        [accountId, apiKeyId],
      );
      if (keyStreams >= limits.perKey) return { granted: false, limit: limits.perKey, current: keyStreams, per: 'key' };
      if (accountStreams >= limits.perAccount) return { granted: false, limit: limits.perAccount, current: accountStreams, per: 'account' };
      const id = randomUUID();
      await runner.query(
        `INSERT INTO gateway.conversation_streams (id, account_id, api_key_id, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`,
        [id, accountId, apiKeyId, ttlMs],
      );
      return { granted: true, id };
    });
  }

  async renew(ids: readonly string[], ttlMs: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(`UPDATE gateway.conversation_streams SET expires_at = now() + $2 * interval '1 millisecond' WHERE id = ANY($1::text[])`, [ids, ttlMs]);
  }

  async release(id: string): Promise<void> {
    await this.db.query(`DELETE FROM gateway.conversation_streams WHERE id = $1`, [id]);
  }
}
