/**
 * The commands' side of the platform sync: run the agent's sync right after
 * the change committed and wait for it up to a bound, so an answer usually
 * shows the platform already done. Past the bound the run goes on by itself
 * (it holds the agent's lock and records its outcome); the answer then says
 * pending, and the work row, due once the bound has passed, covers a process
 * that dies meanwhile.
 */
import { ERROR_CATALOG, type ErrorCode, type ServiceError } from '@voice/contracts';
import { handleChange } from '../agent/agent.command-handling.js';
import { decide } from '../agent/agent.decider.js';
import type { SyncError } from './platform-sync.view.js';
import type { AgentRecord, AgentStore } from '../agent/agent.store.js';
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
 * The agent's row as a run that settled (synced, or retrying later) left it: the agent it synced and the summary it
 * projected. Undefined when the run did not settle within the bound (or another holds the sync, or the agent is
 * gone): its progress is then only on the row.
 */
export function settledRecord(result: SyncRunResult | undefined): AgentRecord | undefined {
  if (result?.kind !== 'synced' && result?.kind !== 'retry') return undefined;
  return { state: result.agent, sync: result.summary };
}

/**
 * The platform refused a new agent for good: withdraw it (it was never shown to anyone) and take back what the
 * platform already got (an agent created before its number was refused), within the same bound; the background
 * sync finishes the removal if the platform stops answering meanwhile.
 */
export async function withdrawRefusedAgent(store: AgentStore, sync: PlatformSyncHandler, accountId: string, agentId: string): Promise<void> {
  await handleChange(
    store,
    { accountId, agentId },
    (agent) => decide({ type: 'WithdrawRefusedAgent', now: new Date().toISOString() }, agent),
    { command: 'WithdrawRefusedAgent', handover: { inlineForMs: sync.settings.inlineBoundMs } },
  );
  await syncWithin(sync, agentId, sync.settings.inlineBoundMs);
}

/**
 * A permanent sync failure as the answer to the create it refused. The codes are the API's, but for an
 * integration whose base URL became unusable (an internal address, a redirect), which the caller fixes like a
 * refused key: invalid_platform_credentials on base_url, as the integration's PUT says it.
 */
export function creationRefusal(error: SyncError): ServiceError {
  if (error.code === 'platform_base_url_refused') return { code: 'invalid_platform_credentials', field: 'base_url', message: error.message };
  const code = (error.code in ERROR_CATALOG ? error.code : 'platform_rejected') as ErrorCode;
  return { code, message: error.message, ...(error.field !== undefined && { field: error.field }) };
}
