import { fail, ServiceFailure, WrongExpectedVersion } from '@voice/service-kit';
import { staleVersionRefusal } from './agent.rules.js';

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
      // The version check passed when the agent was read, so the lost race is versionMustMatch's refusal, met at the append.
      if (expectedVersion !== undefined) throw new ServiceFailure(staleVersionRefusal(expectedVersion));
      if (attempt >= 2) fail('concurrent_modification', 'The agent was changed by another request at the same time; try again.');
    }
  }
}
