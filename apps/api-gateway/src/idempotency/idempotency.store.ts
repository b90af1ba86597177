/** All SQL of Idempotency-Key: gateway.idempotency_keys (rows found by a digest of the key, answers sealed: answer-sealing.ts). */
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE } from '../tokens.js';
import { keyDigest, openAnswer, sealAnswer } from './answer-sealing.js';
import type { StoredKey } from './idempotency.rules.js';

/** A finished request's answer, as sent. */
export interface StoredAnswer {
  status: number;
  /** The JSON body exactly as written. */
  body: string;
  headers: Record<string, string>;
}

export interface FoundKey {
  stored: StoredKey & { claimToken: string; answer: StoredAnswer | undefined };
  /** The database's clock, the one every replica's claims are stamped with. */
  now: Date;
}

interface KeyRow {
  fingerprint: string;
  state: 'running' | 'done';
  claim_token: string;
  claimed_at: Date;
  expires_at: Date;
  status: number | null;
  body: string | null;
  headers: Record<string, string>;
  now: Date;
}

// UPDATE and DELETE go through a CTE so that every statement answers rows (TypeORM reshapes their raw results).
const affected = (rows: Array<{ n: number }>) => Number(rows[0]?.n ?? 0) > 0;

@Injectable()
export class IdempotencyStore {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}

  /** Claims a key nobody holds; false when a row exists (whatever its state or age). */
  async claim(scope: string, key: string, fingerprint: string, token: string, windowMs: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO gateway.idempotency_keys (account_scope, key, fingerprint, state, claim_token, expires_at)
       VALUES ($1, $2, $3, 'running', $4, clock_timestamp() + make_interval(secs => $5::double precision / 1000))
       ON CONFLICT (account_scope, key) DO NOTHING
       RETURNING 1`,
      [scope, keyDigest(scope, key), fingerprint, token, windowMs],
    );
    return rows.length > 0;
  }

  async find(scope: string, key: string): Promise<FoundKey | undefined> {
    const [row]: KeyRow[] = await this.dataSource.query(
      `SELECT fingerprint, state, claim_token, claimed_at, expires_at, status, body, headers, clock_timestamp() AS now
       FROM gateway.idempotency_keys WHERE account_scope = $1 AND key = $2`,
      [scope, keyDigest(scope, key)],
    );
    if (!row) return undefined;
    const body = row.state === 'done' && row.body !== null ? openAnswer(row.body, scope, key) : undefined;
    const answer = row.status !== null && body !== undefined ? { status: row.status, body, headers: row.headers } : undefined;
    return {
      stored: { fingerprint: row.fingerprint, state: row.state, claimedAt: row.claimed_at, expiresAt: row.expires_at, claimToken: row.claim_token, answer },
      now: row.now,
    };
  }

  /** Forgets the key if its window is over (the next claim then starts afresh). */
  async forgetExpired(scope: string, key: string): Promise<void> {
    await this.dataSource.query(
      'DELETE FROM gateway.idempotency_keys WHERE account_scope = $1 AND key = $2 AND expires_at <= clock_timestamp()',
      [scope, keyDigest(scope, key)],
    );
  }

  /** Takes a stale running claim over; false when someone else changed it first. */
  async takeOver(scope: string, key: string, staleToken: string, token: string, windowMs: number): Promise<boolean> {
    const rows: Array<{ n: number }> = await this.dataSource.query(
      `WITH taken AS (
         UPDATE gateway.idempotency_keys
         SET claim_token = $4, claimed_at = clock_timestamp(), created_at = clock_timestamp(),
             expires_at = clock_timestamp() + make_interval(secs => $5::double precision / 1000)
         WHERE account_scope = $1 AND key = $2 AND state = 'running' AND claim_token = $3
         RETURNING 1)
       SELECT count(*)::int AS n FROM taken`,
      [scope, keyDigest(scope, key), staleToken, token, windowMs],
    );
    return affected(rows);
  }

  /** Stores the final answer of the claim; false when the claim is no longer this request's. */
  async complete(scope: string, key: string, token: string, answer: StoredAnswer): Promise<boolean> {
    const rows: Array<{ n: number }> = await this.dataSource.query(
      `WITH done AS (
         UPDATE gateway.idempotency_keys SET state = 'done', status = $4, body = $5, headers = $6::jsonb
         WHERE account_scope = $1 AND key = $2 AND claim_token = $3 AND state = 'running'
         RETURNING 1)
       SELECT count(*)::int AS n FROM done`,
      [scope, keyDigest(scope, key), token, answer.status, sealAnswer(answer.body, scope, key), JSON.stringify(answer.headers)],
    );
    return affected(rows);
  }

  /** Releases the claim without an answer: the next request with the key runs afresh. */
  async release(scope: string, key: string, token: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM gateway.idempotency_keys WHERE account_scope = $1 AND key = $2 AND claim_token = $3 AND state = 'running'`,
      [scope, keyDigest(scope, key), token],
    );
  }

  /** Deletes every key whose window is over; idempotent, so replicas need no coordination. */
  async prune(): Promise<number> {
    const rows: Array<{ n: number }> = await this.dataSource.query(
      `WITH gone AS (DELETE FROM gateway.idempotency_keys WHERE expires_at <= clock_timestamp() RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
    );
    return Number(rows[0]?.n ?? 0);
  }
}
