import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { AgentReply } from '@voice/contracts';
import { handleChange } from '../agent/agent.command-handling.js';
import { withOptimisticConcurrency } from '../agent/agent.concurrency.js';
import { configuredPlatforms, decide, type AgentChanges } from '../agent/agent.decider.js';
import { AgentStore } from '../agent/agent.store.js';
import { agentReply } from '../agent/agent.view.js';
import { IntegrationStore } from '../integrations/integration.store.js';
import { syncWithin } from '../platform-sync/inline-sync.js';
import { PlatformSyncHandler } from '../platform-sync/platform-sync.handler.js';
import { UpdateAgentCommand } from './update-agent.command.js';

/**
 * PATCH /v1/agents/{id}: record the change, then bring the platform to it within the inline bound. A platform
 * refusal does not undo the change (it is valid for us): the answer shows platform_sync failed with the
 * platform's reason, and the next change tries again.
 */
@CommandHandler(UpdateAgentCommand)
export class UpdateAgentHandler implements ICommandHandler<UpdateAgentCommand> {
  constructor(
    private readonly store: AgentStore,
    private readonly integrations: IntegrationStore,
    private readonly sync: PlatformSyncHandler,
  ) {}

  async execute({ account, agentId, payload, expectedVersion }: UpdateAgentCommand): Promise<AgentReply> {
    const { status, ...fields } = payload;
    // Read without a lock: an integration in use by a live agent cannot be removed, so one that exists now stays.
    const integrated = await this.integrations.platforms(account.id);
    const bound = this.sync.settings.inlineBoundMs;
    const { before, after } = await withOptimisticConcurrency(expectedVersion, () =>
      handleChange(
        this.store,
        { accountId: account.id, agentId },
        (agent) =>
          decide(
            {
              type: 'UpdateAgent',
              changes: fields as AgentChanges,
              status: status as 'active' | 'paused' | undefined,
              configured_platforms: configuredPlatforms(account.voice_platforms, integrated),
              expected_version: expectedVersion,
              now: new Date().toISOString(),
            },
            agent,
          ),
        { command: 'UpdateAgent', handover: { inlineForMs: bound } },
      ),
    );
    if (after.version !== before.version) await syncWithin(this.sync, agentId, bound);
    const record = await this.store.findLive(account.id, agentId);
    return agentReply(record!);
  }
}
