import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { AccountContext, AgentReply } from '@voice/contracts';
import { createHash, randomBytes } from 'node:crypto';
import { AgentRuleViolation } from '../agent/agent.js';
import { handleCreate } from '../agent/agent.command-handling.js';
import { configuredPlatforms, decide, type CreateAgent } from '../agent/agent.decider.js';
import { AgentStore } from '../agent/agent.store.js';
import { agentReply } from '../agent/agent.view.js';
import { creationRefusal, settledRecord, syncWithin, withdrawRefusedAgent } from '../platform-sync/inline-sync.js';
import { PlatformSyncHandler } from '../platform-sync/platform-sync.handler.js';
import { CreateAgentCommand } from './create-agent.command.js';

export function newAgentId(): string {
  return `agt_${randomBytes(12).toString('hex')}`;
}

/**
 * The id of the agent a create with this Idempotency-Key makes: derived, so that the same create asked again
 * names the same agent even when nothing remembers the first answer (the gateway that waited for it died).
 * Hashed with the account, so a key says nothing about the id and two accounts' keys never meet.
 */
export function agentIdForIdempotencyKey(accountId: string, key: string): string {
  return `agt_${createHash('sha256').update(`${accountId}\u0000${key}`).digest('hex').slice(0, 24)}`;
}

/** The entries whose value is neither null nor undefined. */
export function withoutNulls<T extends object>(value: T): Partial<{ [K in keyof T]: NonNullable<T[K]> }> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as Partial<{ [K in keyof T]: NonNullable<T[K]> }>;
}

/**
 * POST /v1/agents: the agent is recorded (with its sync queued in the same
 * transaction), then created on its platform before the answer, within the
 * inline bound:
 * - synced → 201 with the platform's agent id (and the number it sold, when none was given);
 * - the platform refused the agent for good → the agent is withdrawn (whatever the platform got is removed)
 *   and the refusal is the answer: nothing is left on either side;
 * - the platform unreachable, slow, 429 or 5xx → 201 pending; the background sync completes it.
 * Recording first is what makes a crash harmless: the queued sync finds the platform agent by our id.
 * The answer is the agent as the inline sync left it (its run returns the row it wrote), so the path is
 * load → decide → write → sync, the store visited once to load and once to write.
 */
@CommandHandler(CreateAgentCommand)
export class CreateAgentHandler implements ICommandHandler<CreateAgentCommand> {
  constructor(
    private readonly store: AgentStore,
    private readonly sync: PlatformSyncHandler,
  ) {}

  async execute({ account, payload, idempotencyKey }: CreateAgentCommand): Promise<AgentReply> {
    // On create, null means "omitted": the decider fills in the defaults; no phone number means "buy one".
    const input = { ...(withoutNulls(payload) as Omit<CreateAgent['input'], 'phone_number'>), phone_number: payload.phone_number ?? null };
    const agentId = idempotencyKey === undefined ? newAgentId() : agentIdForIdempotencyKey(account.id, idempotencyKey);
    const bound = this.sync.settings.inlineBoundMs;
    // The same create again — its first answer was lost, or it is a retry racing that first attempt (the gateway
    // stops waiting for a service that went silent) — finds the agent the first made, as it is now, under the
    // account's lock: that agent is the answer to both, rather than a duplicate_name for its own name.
    const recorded = await this.recordCreate(account, input, agentId, bound, idempotencyKey !== undefined);
    if ('existing' in recorded) return agentReply(recorded.existing);
    const result = await syncWithin(this.sync, agentId, bound);
    if (result?.kind === 'failed') {
      await withdrawRefusedAgent(this.store, this.sync, account.id, agentId);
      throw new AgentRuleViolation(creationRefusal(result.error));
    }
    // A run that settled returns the row as it left it; one still running (past the bound, or another's) has
    // recorded its progress so far only on the row, which is then read.
    const record = settledRecord(result) ?? (await this.store.findLive(account.id, agentId));
    return agentReply(record!);
  }

  private async recordCreate(account: AccountContext, input: CreateAgent['input'], agentId: string, bound: number, repeatable: boolean) {
    return handleCreate(
      this.store,
      { accountId: account.id, name: input.name, ...(repeatable && { repeatOf: agentId }) },
      (accountAgents) =>
        decide(
          {
            type: 'CreateAgent',
            agent_id: agentId,
            account_id: account.id,
            input,
            configured_platforms: configuredPlatforms(account.voice_platforms, accountAgents.integrated_platforms),
            agent_limit: account.agent_limit,
            live_agents: accountAgents.live_agents,
            name_taken: accountAgents.name_taken,
            now: new Date().toISOString(),
          },
          undefined,
        ),
      { command: 'CreateAgent', handover: { inlineForMs: bound } },
    );
  }
}
