import { Inject, Injectable } from '@nestjs/common';
import { appendToStream, currentRequestId, inTransaction, PG_UNIQUE_VIOLATION, pgErrorOf, readStream, type StoredEvent } from '@voice/service-kit';
import { randomUUID } from 'node:crypto';
import { DataSource, type QueryRunner } from 'typeorm';
import { AGENTS_SCHEMA } from '../database/agents-database.js';
import { streamIdOf, type AgentState } from './agent.js';
import type { AccountAgents } from './agent.decider.js';
import type { AgentEvent } from './agent.events.js';
import { fold } from './agent.evolve.js';
import { nameMustBeFree, phoneNumberMustBeFree } from './agent.rules.js';
import type { PlatformSyncSummary } from './platform-sync.view.js';

/** Something to wake after a commit so committed events leave for the bus at once. */
export interface CommitListener {
  nudge(): void;
}
export const COMMIT_LISTENER = Symbol('CommitListener');

type Db = DataSource | QueryRunner;

/** A row of agents.agents; its columns are named like the state's fields. */
export type AgentRow = Omit<AgentState, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date };

export function rowToState(row: AgentRow): AgentState {
  return { ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

/** The agent's row as read for the API: its state and the platform sync's summary. */
export interface AgentRecord {
  state: AgentState;
  sync: PlatformSyncSummary | null;
}

export function rowToRecord(row: AgentRow & { platform_sync: PlatformSyncSummary | null }): AgentRecord {
  const { platform_sync, ...rest } = row;
  return { state: rowToState(rest), sync: platform_sync };
}

/**
 * How long after a change the background sync leaves the agent to the request
 * that made it (which syncs it inline, bounded): the request's own attempt
 * usually finishes first, and a process that died meanwhile is covered once it passes.
 */
export interface SyncHandover {
  inlineForMs: number;
}

export const AGENT_COLUMNS = [
  'id', 'account_id', 'name', 'voice_platform', 'phone_number', 'voice_id', 'language', 'system_prompt', 'welcome_message',
  'transfer_number', 'business_hours', 'recording_enabled', 'transcription_enabled', 'status', 'metadata', 'created_at',
  'updated_at', 'version',
] as const satisfies ReadonlyArray<keyof AgentState>;

/**
 * Every SQL statement of the agents schema but the paged list
 * (list-agents.store.ts) and the built-in provisioner's own number sequence.
 * The event stream is the record, and the read-model row is projected in the
 * same transaction (storing the stream version), so a reader never sees an
 * agent its history does not explain.
 *
 * Writes follow one shape (emmett's command handling): one transaction loads
 * what the decision needs, hands it to the caller's `decide`, and appends the
 * events it returns.
 */
@Injectable()
export class AgentStore {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(COMMIT_LISTENER) private readonly listener: CommitListener,
  ) {}

  /**
   * A new agent: lock the account, read its live agents, decide, append.
   * The quota holds under concurrency because every create of an account
   * queues on the same account_usage row lock and reads the account's agents
   * only once it holds the lock (READ COMMITTED: the read sees every earlier
   * create that committed).
   */
  async create(accountId: string, name: string, decide: (agents: AccountAgents) => AgentEvent[], handover?: SyncHandover): Promise<AgentState> {
    return this.commit(async (runner) => {
      await runner.query('INSERT INTO agents.account_usage (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [accountId]);
      await runner.query('SELECT 1 FROM agents.account_usage WHERE account_id = $1 FOR UPDATE', [accountId]);
      const events = decide(await accountAgents(runner, accountId, name));
      return this.append(runner, undefined, events, 'CreateAgent', handover);
    });
  }

  /**
   * An existing agent of the account: load it from its stream, decide, append
   * after the version that was read (WrongExpectedVersion if another writer
   * got there first). No events (e.g. pausing a paused agent): nothing is
   * written and the agent comes back as it is.
   */
  async change(
    accountId: string,
    agentId: string,
    command: string,
    decide: (agent: AgentState | undefined) => AgentEvent[],
    handover?: SyncHandover,
  ): Promise<{ before: AgentState; after: AgentState }> {
    return this.commit(async (runner) => {
      const loaded = await this.load(runner, accountId, agentId);
      const events = decide(loaded);
      // The decision refuses every command for an agent the account does not have, so one was loaded.
      const before = loaded!;
      const after = events.length ? await this.append(runner, before, events, command, handover) : before;
      return { before, after };
    });
  }

  /**
   * The account's live agents without taking the lock: for the refusal a
   * create gets before anything is spent on it. Only the read under the lock
   * in `create` is authoritative.
   */
  accountAgents(accountId: string, name: string): Promise<AccountAgents> {
    return accountAgents(this.dataSource, accountId, name);
  }

  /** The read-model row of a live (not deleted) agent of the account. */
  async findLive(accountId: string, agentId: string): Promise<AgentRecord | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT ${AGENT_READ_COLUMNS} FROM agents.agents WHERE id = $1 AND account_id = $2 AND status <> 'deleted'`,
      [agentId, accountId],
    );
    return row ? rowToRecord(row) : undefined;
  }

  /** The agent folded from its stream, whatever its account and status (for the platform sync). */
  async current(agentId: string): Promise<AgentState | undefined> {
    return foldStored(await readStream(this.dataSource, AGENTS_SCHEMA, streamIdOf(agentId)));
  }

  /** The platform sync's summary of an agent (after an inline sync, for the answer). */
  async syncSummary(agentId: string): Promise<PlatformSyncSummary | null> {
    const [row] = await this.dataSource.query('SELECT platform_sync FROM agents.agents WHERE id = $1', [agentId]);
    return row?.platform_sync ?? null;
  }

  /**
   * Which of the ids are not agents of the account. Deleted agents still
   * belong to it: a call that was running when its agent was deleted must
   * still be recorded.
   */
  async unknownAgentIds(accountId: string, agentIds: readonly string[]): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query('SELECT id FROM agents.agents WHERE account_id = $1 AND id = ANY($2::text[])', [
      accountId,
      agentIds,
    ]);
    const owned = new Set(rows.map((r) => r.id));
    return agentIds.filter((id) => !owned.has(id));
  }

  /** Resolves only when the database answers. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  /** One transaction; the relay is nudged once it committed. */
  private async commit<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const result = await inTransaction(this.dataSource, work);
    this.listener.nudge();
    return result;
  }

  /** The agent folded from its stream (deleted agents included), if it is the account's. */
  private async load(runner: QueryRunner, accountId: string, agentId: string): Promise<AgentState | undefined> {
    const agent = foldStored(await readStream(runner, AGENTS_SCHEMA, streamIdOf(agentId)));
    return agent?.account_id === accountId ? agent : undefined;
  }

  /**
   * Append after `before.version`, project the result, and tell the platform sync the platforms are behind
   * (its work row, in the same transaction: the sync's outbox).
   */
  private async append(runner: QueryRunner, before: AgentState | undefined, events: AgentEvent[], command: string, handover?: SyncHandover): Promise<AgentState> {
    const after = fold(events, before)!;
    const requestId = currentRequestId() ?? null;
    // correlation: the request the whole exchange belongs to; causation: the one command that produced these
    // events (a command id minted here, so events of one command group together even within one request).
    const metadata = {
      request_id: requestId,
      correlation_id: requestId,
      causation_id: `cmd_${randomUUID()}`,
      account_id: after.account_id,
      command,
    };
    await appendToStream(
      runner,
      AGENTS_SCHEMA,
      streamIdOf(after.id),
      before?.version ?? 0,
      events.map((e) => ({ event_id: randomUUID(), type: e.type, data: e.data, metadata })),
    );
    await this.project(runner, after);
    await queuePlatformSync(runner, after, handover?.inlineForMs ?? 0);
    return after;
  }

  /**
   * Upsert the read-model row. Its partial unique indexes are where the
   * database holds the name and phone number rules for every write, so a
   * violation is that rule's refusal.
   */
  private async project(runner: QueryRunner, state: AgentState): Promise<void> {
    const values = AGENT_COLUMNS.map((column) => {
      const value = state[column];
      if (column === 'business_hours' || column === 'metadata') return value === null ? null : JSON.stringify(value);
      return value;
    });
    const placeholders = AGENT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
    const updates = AGENT_COLUMNS.filter((c) => c !== 'id').map((c) => `${c} = EXCLUDED.${c}`).join(', ');
    try {
      await runner.query(
        `INSERT INTO agents.agents (${AGENT_COLUMNS.join(', ')}) VALUES (${placeholders})
         ON CONFLICT (id) DO UPDATE SET ${updates} WHERE agents.version < EXCLUDED.version`,
        values,
      );
    } catch (err) {
      const pg = pgErrorOf(err);
      if (pg.code === PG_UNIQUE_VIOLATION && pg.constraint === 'agents_account_name_key') nameMustBeFree(state.name, true);
      if (pg.code === PG_UNIQUE_VIOLATION && pg.constraint === 'agents_phone_number_key') phoneNumberMustBeFree(state.phone_number ?? '', true);
      throw err;
    }
  }
}

export const AGENT_READ_COLUMNS = [...AGENT_COLUMNS, 'platform_sync'].join(', ');

/**
 * The agent's platforms are behind its stream from `state.version` on: (re)queue its sync, due after
 * `inlineForMs` (the request's own inline attempt), attempts counted afresh.
 */
export async function queuePlatformSync(runner: QueryRunner, state: AgentState, inlineForMs: number): Promise<void> {
  await runner.query(
    `INSERT INTO agents.platform_sync_work (agent_id, account_id, wanted_version, attempt, not_before)
     VALUES ($1, $2, $3, 0, now() + make_interval(secs => $4::double precision / 1000))
     ON CONFLICT (agent_id) DO UPDATE SET wanted_version = GREATEST(platform_sync_work.wanted_version, EXCLUDED.wanted_version),
       attempt = 0, not_before = EXCLUDED.not_before`,
    [state.id, state.account_id, state.version, inlineForMs],
  );
}

/** The account's live agents, whether one of them has the name, and its integrated platforms; one statement, with or without the account's lock. */
async function accountAgents(db: Db, accountId: string, name: string): Promise<AccountAgents> {
  const [row] = await db.query(
    `SELECT count(*)::int AS live_agents, coalesce(bool_or(lower(btrim(name)) = lower(btrim($2))), false) AS name_taken,
            ARRAY(SELECT platform FROM agents.integrations WHERE account_id = $1 ORDER BY platform) AS integrated_platforms
       FROM agents.agents WHERE account_id = $1 AND status <> 'deleted'`,
    [accountId, name],
  );
  return { live_agents: row.live_agents, name_taken: row.name_taken, integrated_platforms: row.integrated_platforms };
}

function foldStored(stored: readonly StoredEvent[]): AgentState | undefined {
  return fold(stored.map((e) => ({ type: e.type, data: e.data }) as AgentEvent));
}

/**
 * The agent as it was right after `version` of its stream. For the relay,
 * which starts before the module (it is the store's commit listener) and so
 * reads with the data source alone.
 */
export async function loadAgentAt(db: Db, streamId: string, version: number): Promise<AgentState | undefined> {
  return foldStored((await readStream(db, AGENTS_SCHEMA, streamId)).filter((e) => e.stream_version <= version));
}

