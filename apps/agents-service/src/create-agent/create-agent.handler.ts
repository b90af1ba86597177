import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { AccountContext, AgentReply } from '@voice/contracts';
import { randomBytes } from 'node:crypto';
import { AgentRuleViolation } from '../agent/agent.js';
import { creationMustBeAllowed, decide, type CreateAgent } from '../agent/agent.decider.js';
import { AgentStore } from '../agent/agent.store.js';
import { toAgentView } from '../agent/agent.view.js';
import { PHONE_NUMBER_PROVISIONER, type PhoneNumberProvisioner } from '../phone-numbers/phone-number-provisioner.js';
import { CreateAgentCommand } from './create-agent.command.js';

/** A provisioned number that another create took in the meantime is replaced this many times. */
const PROVISIONING_ATTEMPTS = 3;

export function newAgentId(): string {
  return `agt_${randomBytes(12).toString('hex')}`;
}

type CreationInput = Omit<CreateAgent['input'], 'phone_number'> & { phone_number?: string };

/** The entries whose value is neither null nor undefined. */
export function withoutNulls<T extends object>(value: T): Partial<{ [K in keyof T]: NonNullable<T[K]> }> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as Partial<{ [K in keyof T]: NonNullable<T[K]> }>;
}

@CommandHandler(CreateAgentCommand)
export class CreateAgentHandler implements ICommandHandler<CreateAgentCommand> {
  constructor(
    private readonly store: AgentStore,
    @Inject(PHONE_NUMBER_PROVISIONER) private readonly provisioner: PhoneNumberProvisioner,
  ) {}

  async execute({ account, payload }: CreateAgentCommand): Promise<AgentReply> {
    // On create, null means "omitted": the decider fills in the defaults.
    const input = withoutNulls(payload) as CreationInput;
    for (let attempt = 1; ; attempt++) {
      const agentId = newAgentId();
      const provisioned = input.phone_number ? undefined : await this.provisionNumber(account, input, agentId);
      try {
        const agent = await this.store.create(account.id, input.name, (accountAgents) =>
          decide(
            {
              type: 'CreateAgent',
              agent_id: agentId,
              account_id: account.id,
              input: { ...input, phone_number: input.phone_number ?? provisioned! },
              configured_platforms: account.voice_platforms,
              agent_limit: account.agent_limit,
              ...accountAgents,
              now: new Date().toISOString(),
            },
            undefined,
          ),
        );
        return { agent: toAgentView(agent), version: agent.version };
      } catch (err) {
        if (provisioned) await this.provisioner.release(provisioned);
        const takenMeanwhile = provisioned && err instanceof AgentRuleViolation && err.detail.code === 'phone_number_in_use';
        if (takenMeanwhile && attempt < PROVISIONING_ATTEMPTS) continue;
        throw err;
      }
    }
  }

  /**
   * Provisioning can be slow and costly with a real provider, so it happens
   * outside the transaction, and only for a create the rules would let through
   * on what the account looks like now (read without its lock). The decision
   * under the lock checks the same rules again on fresh facts.
   */
  private async provisionNumber(account: AccountContext, input: CreationInput, agentId: string): Promise<string> {
    const accountAgents = await this.store.accountAgents(account.id, input.name);
    creationMustBeAllowed(input, { configured_platforms: account.voice_platforms, agent_limit: account.agent_limit, ...accountAgents });
    return this.provisioner.provision({ account_id: account.id, agent_id: agentId });
  }
}
