import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { AgentReply } from '@voice/contracts';
import { withOptimisticConcurrency } from '../agent/agent.concurrency.js';
import { decide, type AgentChanges } from '../agent/agent.decider.js';
import { AgentStore } from '../agent/agent.store.js';
import { toAgentView } from '../agent/agent.view.js';
import { PHONE_NUMBER_PROVISIONER, type PhoneNumberProvisioner } from '../phone-numbers/phone-number-provisioner.js';
import { UpdateAgentCommand } from './update-agent.command.js';

@CommandHandler(UpdateAgentCommand)
export class UpdateAgentHandler implements ICommandHandler<UpdateAgentCommand> {
  constructor(
    private readonly store: AgentStore,
    @Inject(PHONE_NUMBER_PROVISIONER) private readonly provisioner: PhoneNumberProvisioner,
  ) {}

  async execute({ account, agentId, payload, expectedVersion }: UpdateAgentCommand): Promise<AgentReply> {
    const { status, ...fields } = payload;
    const { before, after } = await withOptimisticConcurrency(expectedVersion, () =>
      this.store.change(account.id, agentId, 'UpdateAgent', (agent) =>
        decide(
          {
            type: 'UpdateAgent',
            changes: fields as AgentChanges,
            status: status as 'active' | 'paused' | undefined,
            configured_platforms: account.voice_platforms,
            expected_version: expectedVersion,
            now: new Date().toISOString(),
          },
          agent,
        ),
      ),
    );
    if (before.phone_number !== after.phone_number) await this.provisioner.release(before.phone_number);
    return { agent: toAgentView(after), version: after.version };
  }
}
