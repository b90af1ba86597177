import { fail, PG_UNIQUE_VIOLATION, pgErrorOf, ServiceFailure, WrongExpectedVersion } from '@voice/service-kit';
import type { AgentState } from './agent.js';
import { nameMustBeFree, phoneNumberMustBeFree, staleVersionRefusal } from './agent.rules.js';

/**
 * Runs a load-decide-write unit. When another writer appended first: a caller
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

/**
 * The read model's partial unique indexes hold the name and the phone number rules for every write, so a
 * write they refuse lost a race with a transaction that committed the same name or number after this one read
 * its facts (a rename takes no account lock; no lock covers every account's numbers). Such a refusal is that
 * rule's refusal of `attempted`, the agent the write would have made; any other error is not a rule's.
 */
export function refuseLostUniqueKeyRace(err: unknown, attempted: AgentState | undefined): void {
  const pg = pgErrorOf(err);
  if (!attempted || pg.code !== PG_UNIQUE_VIOLATION) return;
  if (pg.constraint === 'agents_account_name_key') nameMustBeFree(attempted.name, true);
  if (pg.constraint === 'agents_phone_number_key') phoneNumberMustBeFree(attempted.phone_number ?? '', true);
}
