/**
 * Every agent command in one shape (emmett's `handle(store, id, decide)`): one transaction loads the facts the
 * decision needs, the pure decider turns them into events (or refuses), the events are folded into the agent
 * they make, and the store writes both. Nothing is decided in the store: a write the database refuses because
 * another transaction got there first is named here, as the rule that race met.
 */
import type { AgentState } from './agent.js';
import { refuseLostUniqueKeyRace } from './agent.concurrency.js';
import type { AccountAgents } from './agent.decider.js';
import type { AgentEvent } from './agent.events.js';
import { fold } from './agent.evolve.js';
import type { AgentRecord, AgentStore, AgentTransaction, SyncHandover } from './agent.store.js';

export interface AgentCommandOptions {
  /** The command's name, kept in the events' metadata. */
  command: string;
  handover?: SyncHandover;
}

/**
 * A new agent, decided on the account's live agents read under the account's lock. `repeatOf`: the id a
 * repeated create (same Idempotency-Key) names; when that agent is live it is the outcome and nothing is
 * decided — read under the same lock, so a repeat running beside the first create waits for it and finds it.
 */
export async function handleCreate(
  store: AgentStore,
  target: { accountId: string; name: string; repeatOf?: string },
  decide: (agents: AccountAgents) => AgentEvent[],
  options: AgentCommandOptions,
): Promise<{ created: AgentState } | { existing: AgentRecord }> {
  let existing: AgentRecord | undefined;
  const { after } = await handle(store, options, async (tx) => {
    const agents = await tx.lockedAccountAgents(target.accountId, target.name);
    existing = target.repeatOf === undefined ? undefined : await tx.liveAgent(target.accountId, target.repeatOf);
    return { before: undefined, events: existing ? [] : decide(agents) };
  });
  return existing ? { existing } : { created: after };
}

/**
 * An existing agent of the account, decided on its state folded from its stream and written after the version
 * that was read. The decision refuses every command for an agent the account does not have; no events (e.g.
 * pausing a paused agent) writes nothing and the agent comes back as it is.
 */
export async function handleChange(
  store: AgentStore,
  target: { accountId: string; agentId: string },
  decide: (agent: AgentState | undefined) => AgentEvent[],
  options: AgentCommandOptions,
): Promise<{ before: AgentState; after: AgentState }> {
  const { before, after } = await handle(store, options, async (tx) => {
    const loaded = await tx.agent(target.accountId, target.agentId);
    return { before: loaded, events: decide(loaded) };
  });
  return { before: before!, after };
}

async function handle(
  store: AgentStore,
  { command, handover }: AgentCommandOptions,
  loadAndDecide: (tx: AgentTransaction) => Promise<{ before: AgentState | undefined; events: AgentEvent[] }>,
): Promise<{ before: AgentState | undefined; after: AgentState }> {
  let attempted: AgentState | undefined;
  try {
    return await store.transaction(async (tx) => {
      const { before, events } = await loadAndDecide(tx);
      if (events.length === 0) return { before, after: before! };
      const after = fold(events, before)!;
      attempted = after;
      await tx.write({ before, events, after, command, handover });
      return { before, after };
    });
  } catch (err) {
    refuseLostUniqueKeyRace(err, attempted);
    throw err;
  }
}
