import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';
import type { AccountContext } from '@voice/contracts';
import { RecentAnswers } from '../caching/recent-answers.js';
import { DATA_SOURCE } from '../tokens.js';
import { generateApiKey } from './api-key.js';
import { newApiKeyId } from './resource-ids.js';
import type { ApiKeyView, CreatedApiKey } from './api-key.views.js';
import { isScope, type Scope } from './scopes.js';

export interface ResolvedKey {
  key_id: string;
  scopes: Scope[];
  account: AccountContext;
  /** The account's plan: it selects the rate limits. */
  plan: string;
}

interface KeyRow {
  id: string;
  name: string | null;
  prefix: string;
  scopes: string[];
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * How long a gateway trusts a key it has just looked up. A revocation forgets the key at once on the
 * gateway that revoked it; every other replica looks it up again within this time, without depending
 * on the bus (a lost invalidation message cannot keep a revoked key alive).
 */
export const KEY_LOOKUP_TTL_MS = 1_000;
/** Keys remembered at most (a flood of distinct valid keys evicts the oldest, it cannot grow memory). */
const MAX_REMEMBERED_KEYS = 10_000;

/** last_used_at is informative only, so it is written at most once a minute per key to keep auth read-mostly. */
const LAST_USED_RESOLUTION = '1 minute';

@Injectable()
export class ApiKeysStore {
  /** Keys found recently, by the secret's hash; unknown and revoked secrets are never remembered. */
  private readonly recent = new RecentAnswers<ResolvedKey>(MAX_REMEMBERED_KEYS);
  /** Counts revocations here, so a lookup that began before one is not remembered after it. */
  private revocations = 0;

  constructor(@Inject(DATA_SOURCE) private readonly db: DataSource) {}

  async create(accountId: string, scopes: Scope[], name: string | null, runner?: QueryRunner): Promise<CreatedApiKey> {
    const key = generateApiKey();
    const id = newApiKeyId();
    const [row] = (await (runner ?? this.db).query(
      `INSERT INTO gateway.api_keys (id, account_id, name, prefix, secret_sha256, scopes)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`,
      [id, accountId, name, key.prefix, key.hash, scopes],
    )) as Array<{ created_at: Date }>;
    return { id, name, api_key: key.secret, prefix: key.prefix, scopes, created_at: row.created_at.toISOString() };
  }

  /**
   * The key behind a secret's hash (hashApiKey; `cacheKey` its base64, which the caller has already made for the
   * rate limiter), looked up at most once per KEY_LOOKUP_TTL_MS per gateway: a
   * revocation applies to the next request on the revoking gateway and within that time on the others.
   */
  async resolve(hash: Buffer, cacheKey = hash.toString('base64'), now = Date.now()): Promise<ResolvedKey | undefined> {
    const recent = this.recent.get(cacheKey, now);
    if (recent && recent.ageMs < KEY_LOOKUP_TTL_MS) return recent.value;
    const revocationsBefore = this.revocations;
    const resolved = await this.lookUp(hash);
    if (resolved && revocationsBefore === this.revocations) this.recent.remember(cacheKey, resolved, now);
    else this.recent.forget(cacheKey);
    return resolved;
  }

  private async lookUp(hash: Buffer): Promise<ResolvedKey | undefined> {
    const rows = (await this.db.query(
      `SELECT k.id, k.scopes, a.id AS account_id, a.agent_limit, a.voice_platforms, a.plan
         FROM gateway.api_keys k JOIN gateway.accounts a ON a.id = k.account_id
        WHERE k.secret_sha256 = $1 AND k.revoked_at IS NULL`,
      [hash],
    )) as Array<{ id: string; scopes: string[]; account_id: string; agent_limit: number; voice_platforms: string[]; plan: string }>;
    const row = rows[0];
    if (!row) return undefined;
    void this.db
      .query(
        `UPDATE gateway.api_keys SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '${LAST_USED_RESOLUTION}')`,
        [row.id],
      )
      .catch(() => undefined);
    return {
      key_id: row.id,
      scopes: row.scopes.filter(isScope),
      account: { id: row.account_id, agent_limit: row.agent_limit, voice_platforms: row.voice_platforms },
      plan: row.plan,
    };
  }

  async list(accountId: string, limit: number, offset: number): Promise<{ items: ApiKeyView[]; total: number }> {
    // Page and total in one statement, so one snapshot: the total always counts the keys the page was cut from.
    // A page past the end is one row of nulls beside the total.
    const found: Array<KeyRow & { total: number }> = await this.db.query(
      `SELECT t.total, k.id, k.name, k.prefix, k.scopes, k.created_at, k.revoked_at, k.last_used_at
         FROM (SELECT count(*)::int AS total FROM gateway.api_keys WHERE account_id = $1) t
         LEFT JOIN LATERAL (
           SELECT id, name, prefix, scopes, created_at, revoked_at, last_used_at
             FROM gateway.api_keys WHERE account_id = $1
            ORDER BY created_at, id LIMIT $2 OFFSET $3) k ON true
        ORDER BY k.created_at, k.id`,
      [accountId, limit, offset],
    );
    const total = found[0]?.total ?? 0;
    const rows = found.filter((r) => r.id !== null);
    return {
      total,
      items: rows.map((r) => ({
        id: r.id,
        name: r.name,
        prefix: r.prefix,
        scopes: r.scopes.filter(isScope),
        created_at: r.created_at.toISOString(),
        revoked_at: iso(r.revoked_at),
        last_used_at: iso(r.last_used_at),
      })),
    };
  }

  /** Scopes of a key of the account (revoked or not); undefined when the account has no such key. */
  async scopesOf(accountId: string, keyId: string): Promise<Scope[] | undefined> {
    const [row] = (await this.db.query(`SELECT scopes FROM gateway.api_keys WHERE id = $1 AND account_id = $2`, [keyId, accountId])) as Array<{
      scopes: string[];
    }>;
    return row?.scopes.filter(isScope);
  }

  /** Revokes a key of the account; false when the account has no such key. Revoking twice keeps the first time. */
  async revoke(accountId: string, keyId: string, runner?: QueryRunner): Promise<boolean> {
    this.revocations += 1;
    const rows = (await (runner ?? this.db).query(
      `UPDATE gateway.api_keys SET revoked_at = coalesce(revoked_at, now())
        WHERE id = $1 AND account_id = $2 RETURNING id`,
      [keyId, accountId],
    )) as [Array<{ id: string }>, number] | Array<{ id: string }>;
    this.revocations += 1;
    this.recent.forgetWhere((key) => key.key_id === keyId);
    return rowCount(rows) > 0;
  }
}

/** TypeORM returns [rows, count] for UPDATE … RETURNING on postgres. */
function rowCount(result: unknown): number {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[1];
  return Array.isArray(result) ? result.length : 0;
}
