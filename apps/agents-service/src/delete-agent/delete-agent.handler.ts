import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { DeleteAgentReply } from '@voice/contracts';
import { withOptimisticConcurrency } from '../agent/agent.concurrency.js';
import { decide } from '../agent/agent.decider.js';
import { AgentStore } from '../agent/agent.store.js';
import { PHONE_NUMBER_PROVISIONER, type PhoneNumberProvisioner } from '../phone-numbers/phone-number-provisioner.js';
import { DeleteAgentCommand } from './delete-agent.command.js';

/**
 * Deleting keeps the history (the stream and the row, status deleted) so late
 * call events and existing conversations still resolve the agent, while the
 * partial unique indexes free its name and number and the quota stops counting it.
 */
@CommandHandler(DeleteAgentCommand)
export class DeleteAgentHandler implements ICommandHandler<DeleteAgentCommand> {
  constructor(
    private readonly store: AgentStore,
    @Inject(PHONE_NUMBER_PROVISIONER) private readonly provisioner: PhoneNumberProvisioner,
  ) {}

  async execute({ accountId, agentId, expectedVersion }: DeleteAgentCommand): Promise<DeleteAgentReply> {
    const { before } = await withOptimisticConcurrency(expectedVersion, () =>
      this.store.change(accountId, agentId, 'DeleteAgent', (agent) =>
        decide({ type: 'DeleteAgent', expected_version: expectedVersion, now: new Date().toISOString() }, agent),
      ),
    );
    await this.provisioner.release(before.phone_number);
    return { id: agentId, deleted: true };
  }
}
