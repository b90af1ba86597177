import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { AgentReply, VoicePlatform } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { randomBytes } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { AgentRuleViolation } from '../agent/agent.js';
import { assertPlatformConfigured, decide, type CreateAgent } from '../agent/agent.decider.js';
import { AgentStore } from '../agent/agent.store.js';
import { withoutNulls } from '../agent/agent.request.js';
import { toAgentView } from '../agent/agent.view.js';
import { PHONE_NUMBER_PROVISIONER, type PhoneNumberProvisioner } from '../phone-numbers/phone-number-provisioner.js';
import { CreateAgentCommand } from './create-agent.command.js';

/** A provisioned number that another create took in the meantime is replaced this many times. */
const PROVISIONING_ATTEMPTS = 3;

export function newAgentId(): string {
  return `agt_${randomBytes(12).toString('hex')}`;
}

@CommandHandler(CreateAgentCommand)
export class CreateAgentHandler implements ICommandHandler<CreateAgentCommand> {
  constructor(
    private readonly store: AgentStore,
    @Inject(PHONE_NUMBER_PROVISIONER) private readonly provisioner: PhoneNumberProvisioner,
  ) {}

  async execute({ account, payload }: CreateAgentCommand): Promise<AgentReply> {
    const platform = payload.voice_platform as VoicePlatform;
    // Checked before a number is provisioned, so a refused request costs no number.
    assertPlatformConfigured(platform, account.voice_platforms);

    for (let attempt = 1; ; attempt++) {
      const agentId = newAgentId();
      const provisioned = payload.phone_number ? undefined : await this.provisionFor(account.id, account.agent_limit, agentId, payload.name);
      const phoneNumber = payload.phone_number ?? provisioned!;
      try {
        const state = await this.store.commit(async (runner) => {
          await this.reserveQuota(runner, account.id, account.agent_limit);
          const events = decide(
            {
              type: 'CreateAgent',
              agent_id: agentId,
              account_id: account.id,
              // On create, null means "omitted": the decider fills in the defaults.
              input: { ...withoutNulls(payload), voice_platform: platform, phone_number: phoneNumber } as CreateAgent['input'],
              configured_platforms: account.voice_platforms,
              now: new Date().toISOString(),
            },
            undefined,
          );
          return this.store.append(runner, undefined, events, 'CreateAgent');
        });
        return { agent: toAgentView(state), version: state.version };
      } catch (err) {
        if (provisioned) await this.provisioner.release(provisioned);
        const takenMeanwhile = provisioned && err instanceof AgentRuleViolation && err.detail.code === 'phone_number_in_use';
        if (takenMeanwhile && attempt < PROVISIONING_ATTEMPTS) continue;
        throw err;
      }
    }
  }

  /**
   * The quota holds under concurrency because every create of an account
   * queues on the same account_usage row lock, and counts live agents only
   * after it holds the lock (READ COMMITTED: the count sees every earlier
   * create that committed). Paused agents count; deleted ones do not.
   */
  private async reserveQuota(runner: QueryRunner, accountId: string, limit: number): Promise<void> {
    await runner.query('INSERT INTO agents.account_usage (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [accountId]);
    await runner.query('SELECT 1 FROM agents.account_usage WHERE account_id = $1 FOR UPDATE', [accountId]);
    const [{ current }] = await runner.query(
      `SELECT count(*)::int AS current FROM agents.agents WHERE account_id = $1 AND status <> 'deleted'`,
      [accountId],
    );
    if (current >= limit) this.quotaExceeded(limit, current);
  }

  private quotaExceeded(limit: number, current: number): never {
    fail('quota_exceeded', `The plan allows ${limit} agents and the account has ${current}.`, { limit, current });
  }

  /**
   * Provisioning can be slow and costly with a real provider, so it happens
   * outside the transaction, after a cheap pre-check of the refusals that do
   * not need the lock. The authoritative checks still run under the lock.
   */
  private async provisionFor(accountId: string, limit: number, agentId: string, name: string): Promise<string> {
    const [{ current, name_taken }] = await this.store.dataSource.query(
      `SELECT count(*)::int AS current, bool_or(lower(btrim(name)) = lower(btrim($2))) AS name_taken
         FROM agents.agents WHERE account_id = $1 AND status <> 'deleted'`,
      [accountId, name],
    );
    if (current >= limit) this.quotaExceeded(limit, current);
    if (name_taken) fail('duplicate_name', `An agent named "${name}" already exists in this account.`, { field: 'name' });
    return this.provisioner.provision({ account_id: accountId, agent_id: agentId });
  }
}
