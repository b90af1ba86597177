import { fail } from '@voice/service-kit';
import { WrongExpectedVersion } from '@voice/service-kit';
import type { AgentState } from './agent.js';

/**
 * Runs a load-decide-append unit. When another writer appended first: a caller
 * that named the version it expected (If-Match) gets precondition_failed; a
 * caller that did not is retried once on the fresh state, then gets
 * concurrent_modification.
 */
export async function withOptimisticConcurrency<T>(expectedVersion: number | undefined, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof WrongExpectedVersion)) throw err;
      if (expectedVersion !== undefined) stale(expectedVersion);
      if (attempt >= 2) fail('concurrent_modification', 'The agent was changed by another request at the same time; try again.');
    }
  }
}

export function assertExpectedVersion(state: AgentState, expectedVersion: number | undefined): void {
  if (expectedVersion !== undefined && state.version !== expectedVersion) stale(expectedVersion);
}

function stale(expectedVersion: number): never {
  fail('precondition_failed', `The agent is no longer at version ${expectedVersion}; fetch it again and retry.`);
}

/** The agent as the account may see it for a write: another account's or a deleted agent is not found. */
export function ownedLiveAgent(state: AgentState | undefined, accountId: string): AgentState {
  if (!state || state.account_id !== accountId || state.status === 'deleted') fail('not_found', 'No agent with this id exists.');
  return state;
}
