import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { DeleteAgentReply } from '@voice/contracts';
import { handleChange } from '../agent/agent.command-handling.js';
import { withOptimisticConcurrency } from '../agent/agent.concurrency.js';
import { decide } from '../agent/agent.decider.js';
import { AgentStore } from '../agent/agent.store.js';
import { syncWithin } from '../platform-sync/inline-sync.js';
import { PlatformSyncHandler } from '../platform-sync/platform-sync.handler.js';
import { DeleteAgentCommand } from './delete-agent.command.js';

/**
 * Deleting keeps the history (the stream and the row, status deleted) so late
 * call events and existing conversations still resolve the agent, while the
 * partial unique indexes free its name and number and the quota stops counting it.
 * On the platform the number is unbound (a bought one released) and the agent
 * deleted, within the inline bound or else by the background sync.
 */
@CommandHandler(DeleteAgentCommand)
export class DeleteAgentHandler implements ICommandHandler<DeleteAgentCommand> {
  constructor(
    private readonly store: AgentStore,
    private readonly sync: PlatformSyncHandler,
  ) {}

  async execute({ accountId, agentId, expectedVersion }: DeleteAgentCommand): Promise<DeleteAgentReply> {
    const bound = this.sync.settings.inlineBoundMs;
    await withOptimisticConcurrency(expectedVersion, () =>
      handleChange(
        this.store,
        { accountId, agentId },
        (agent) => decide({ type: 'DeleteAgent', expected_version: expectedVersion, now: new Date().toISOString() }, agent),
        { command: 'DeleteAgent', handover: { inlineForMs: bound } },
      ),
    );
    await syncWithin(this.sync, agentId, bound);
    return { id: agentId, deleted: true };
  }
}
