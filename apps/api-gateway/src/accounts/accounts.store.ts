import { VOICE_PLATFORMS } from '@voice/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';
import { inTransaction } from '@voice/service-kit';
import type { CreatedApiKey } from '../auth/api-key.views.js';
import { ApiKeysStore } from '../auth/api-keys.store.js';
import { newAccountId } from '../auth/resource-ids.js';
import { SCOPES } from '../auth/scopes.js';
import { DATA_SOURCE } from '../tokens.js';
import type { CreateAccountBody } from './create-account.body.js';
import type { CreatedAccount } from './created-account.view.js';

@Injectable()
export class AccountsStore {
  constructor(
    @Inject(DATA_SOURCE) private readonly db: DataSource,
    private readonly keys: ApiKeysStore,
  ) {}

  /**
   * The account and its first, all-scopes key commit together: an account is never left without a way in.
   * `firstKeyCreated` runs in the same transaction (the key's audit entry commits with it).
   */
  async create(
    body: CreateAccountBody,
    firstKeyCreated?: (created: { accountId: string; keyId: string }, runner: QueryRunner) => Promise<void>,
  ): Promise<CreatedAccount> {
    return inTransaction(this.db, async (runner) => {
      const id = newAccountId();
      const voicePlatforms = body.voice_platforms ?? [...VOICE_PLATFORMS];
      const [row] = (await runner.query(
        `INSERT INTO gateway.accounts (id, name, plan, agent_limit, voice_platforms)
         VALUES ($1, $2, $3, $4, $5) RETURNING created_at`,
        [id, body.name.trim(), body.plan.trim(), body.agent_limit, voicePlatforms],
      )) as Array<{ created_at: Date }>;
      const key: CreatedApiKey = await this.keys.create(id, [...SCOPES], 'bootstrap', runner);
      await firstKeyCreated?.({ accountId: id, keyId: key.id }, runner);
      return {
        id,
        name: body.name.trim(),
        plan: body.plan.trim(),
        agent_limit: body.agent_limit,
        voice_platforms: voicePlatforms,
        api_key: key.api_key,
        created_at: row.created_at.toISOString(),
      };
    });
  }
}
