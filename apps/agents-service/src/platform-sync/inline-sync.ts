/**
 * The commands' side of the platform sync: run the agent's sync right after
 * the change committed and wait for it up to a bound, so an answer usually
 * shows the platform already done. Past the bound the run goes on by itself
 * (it holds the agent's lock and records its outcome); the answer then says
 * pending, and the work row, due once the bound has passed, covers a process
 * that dies meanwhile.
 */
import { decide } from '../agent/agent.decider.js';
import type { AgentStore } from '../agent/agent.store.js';
import type { PlatformSyncHandler, SyncRunResult } from './platform-sync.handler.js';

/** The run's result, or undefined when it did not end within `boundMs` (or failed unexpectedly: the worker retries it). */
export async function syncWithin(sync: PlatformSyncHandler, agentId: string, boundMs: number): Promise<SyncRunResult | undefined> {
  const run = sync.sync(agentId).catch((err: unknown) => {
    sync.settings.logger.error({ err, agent_id: agentId }, 'inline platform sync failed; the background sync retries it');
    return undefined;
  });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), boundMs);
  });
  try {
    return await Promise.race([run, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The platform refused a new agent for good: withdraw it (it was never shown to anyone) and take back what the
 * platform already got (an agent created before its number was refused), within the same bound; the background
 * sync finishes the removal if the platform stops answering meanwhile.
 */
export async function withdrawRefusedAgent(store: AgentStore, sync: PlatformSyncHandler, accountId: string, agentId: string): Promise<void> {
  await store.change(
    accountId,
    agentId,
    'WithdrawRefusedAgent',
    (agent) => decide({ type: 'WithdrawRefusedAgent', now: new Date().toISOString() }, agent),
    { inlineForMs: sync.settings.inlineBoundMs },
  );
  await syncWithin(sync, agentId, sync.settings.inlineBoundMs);
}
