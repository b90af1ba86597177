import { Inject, Injectable } from '@nestjs/common';
import { appendToStream, currentRequestOrigin, inTransaction, preparedRead, ReadRouter, readStream, type StoredEvent } from '@voice/service-kit';
import { randomUUID } from 'node:crypto';
import { DataSource, type QueryRunner } from 'typeorm';
import { AGENTS_SCHEMA } from '../database/agents-database.js';
import { streamIdOf, type AgentState } from './agent.js';
import type { AccountAgents } from './agent.decider.js';
import type { AgentEvent } from './agent.events.js';
import { fold } from './agent.evolve.js';
import type { PlatformSyncSummary } from '../platform-sync/platform-sync.view.js';

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
  'transfer_number', 'business_hours', 'recording_enabled', 'transcription_enabled', 'pii_redaction', 'store_content', 'retention',
  'status', 'metadata', 'created_at', 'updated_at', 'version',
] as const satisfies ReadonlyArray<keyof AgentState>;

const JSON_COLUMNS = new Set<string>(['business_hours', 'metadata', 'pii_redaction', 'retention']);

/** What one command writes: the events the decider returned, appended after `before`, and the agent they fold to. */
export interface AgentWrite {
  before: AgentState | undefined;
  events: readonly AgentEvent[];
  after: AgentState;
  command: string;
  /** How long the background sync leaves the change to the request that made it (see SyncHandover). */
  handover?: SyncHandover;
}

/**
 * The agents schema's statements within one transaction: the facts a decision needs, and the write of what it
 * decided. It decides nothing: a statement the database refuses (a unique index, the stream's version) throws
 * as the database said it, and the command handling (agent.command-handling.ts) names the rule that race met.
 */
export class AgentTransaction {
  /** The accounts whose agents this transaction wrote: their reads stay on the primary until a replica has it. */
  readonly wroteAccounts = new Set<string>();

  constructor(private readonly runner: QueryRunner) {}

  /**
   * The account's live agents as a create needs them, read under the account's lock: every create of an
   * account queues on the same account_usage row and reads only once it holds it (READ COMMITTED: the read
   * sees every earlier create that committed), so the quota and the name hold under concurrency.
   */
  async lockedAccountAgents(accountId: string, name: string): Promise<AccountAgents> {
    await this.runner.query('INSERT INTO agents.account_usage (account_id) VALUES ($1) ON CONFLICT (account_id) DO NOTHING', [accountId]);
    await this.runner.query('SELECT 1 FROM agents.account_usage WHERE account_id = $1 FOR UPDATE', [accountId]);
    return accountAgents(this.runner, accountId, name);
  }

  /** The read-model row of a live (not deleted) agent of the account. */
  async liveAgent(accountId: string, agentId: string): Promise<AgentRecord | undefined> {
    return liveAgent(this.runner, accountId, agentId);
  }

  /** The agent folded from its stream (deleted agents included), if it is the account's. */
  async agent(accountId: string, agentId: string): Promise<AgentState | undefined> {
    const agent = foldStored(await readStream(this.runner, AGENTS_SCHEMA, streamIdOf(agentId)));
    return agent?.account_id === accountId ? agent : undefined;
  }

  /**
   * Appends the events after `before.version` (WrongExpectedVersion if another writer got there first),
   * projects `after` onto the read-model row (whose partial unique indexes hold the name and the phone number
   * for every write), and tells the platform sync the platforms are behind (its work row: the sync's outbox).
   */
  async write({ before, events, after, command, handover }: AgentWrite): Promise<void> {
    this.wroteAccounts.add(after.account_id);
    const origin = currentRequestOrigin();
    // correlation: the request the whole exchange belongs to; causation: the one command that produced these
    // events (a command id minted here, so events of one command group together even within one request).
    // actor_key_id and client_address: who asked, as the gateway saw it, for the audit log.
    const metadata = {
      request_id: origin.request_id,
      correlation_id: origin.request_id,
      causation_id: `cmd_${randomUUID()}`,
      account_id: after.account_id,
      command,
      actor_key_id: origin.actor_key_id,
      client_address: origin.client_address,
    };
    await appendToStream(
      this.runner,
      AGENTS_SCHEMA,
      streamIdOf(after.id),
      before?.version ?? 0,
      events.map((e) => ({ event_id: randomUUID(), type: e.type, data: e.data, metadata })),
    );
    await this.project(after);
    await queuePlatformSync(this.runner, after, handover?.inlineForMs ?? 0);
  }

  /** Upsert the read-model row (a row already at a later version stays). */
  private async project(state: AgentState): Promise<void> {
    const values = AGENT_COLUMNS.map((column) => {
      const value = state[column];
      if (JSON_COLUMNS.has(column)) return value === null ? null : JSON.stringify(value);
      return value;
    });
    const placeholders = AGENT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
    const updates = AGENT_COLUMNS.filter((c) => c !== 'id').map((c) => `${c} = EXCLUDED.${c}`).join(', ');
    await this.runner.query(
      `INSERT INTO agents.agents (${AGENT_COLUMNS.join(', ')}) VALUES (${placeholders})
       ON CONFLICT (id) DO UPDATE SET ${updates} WHERE agents.version < EXCLUDED.version`,
      values,
    );
  }
}

/**
 * Every SQL statement of the agents schema but the paged list
 * (list-agents.store.ts) and the built-in provisioner's own number sequence.
 * The event stream is the record, and the read-model row is projected in the
 * same transaction (storing the stream version), so a reader never sees an
 * agent its history does not explain.
 */
@Injectable()
export class AgentStore {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(COMMIT_LISTENER) private readonly listener: CommitListener,
    private readonly reads: ReadRouter,
  ) {}

  /**
   * One transaction (load, then write what was decided on it); the relay is nudged once it committed, and the
   * accounts it wrote are marked so their next reads see the write even with a read replica behind.
   */
  async transaction<T>(work: (tx: AgentTransaction) => Promise<T>): Promise<T> {
    let wrote: ReadonlySet<string> = new Set();
    const result = await inTransaction(this.dataSource, (runner) => {
      const tx = new AgentTransaction(runner);
      wrote = tx.wroteAccounts;
      return work(tx);
    });
    this.listener.nudge();
    for (const accountId of wrote) await this.reads.wrote(accountId);
    return result;
  }

  /** The read-model row of a live (not deleted) agent of the account, on the primary (after a write of it). */
  async findLive(accountId: string, agentId: string): Promise<AgentRecord | undefined> {
    return liveAgent(this.dataSource, accountId, agentId);
  }

  /** The same read for GET: on the read replica when it may serve the account (service-kit ReadRouter). */
  async readLive(accountId: string, agentId: string): Promise<AgentRecord | undefined> {
    return this.reads.read(accountId, async (db) => {
      const [row] = await preparedRead<AgentRow & { platform_sync: PlatformSyncSummary | null }>(db, 'agents.read-live-agent', LIVE_AGENT_SQL, [agentId, accountId]);
      return row ? rowToRecord(row) : undefined;
    });
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

  /** The read replica's state and lag, when one is configured (for /health). */
  readReplica() {
    return this.reads.configured ? this.reads.health() : undefined;
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

/** One live agent of the account, by its primary key (a plan that never changes: safe as a named statement). */
const LIVE_AGENT_SQL = `SELECT ${AGENT_READ_COLUMNS} FROM agents.agents WHERE id = $1 AND account_id = $2 AND status <> 'deleted'`;

async function liveAgent(db: Db, accountId: string, agentId: string): Promise<AgentRecord | undefined> {
  const [row] = await db.query(LIVE_AGENT_SQL, [agentId, accountId]);
  return row ? rowToRecord(row) : undefined;
}

/** The account's live agents, whether one of them has the name, and its integrated platforms: one statement. */
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

