import { Inject, Injectable } from '@nestjs/common';
import { appendToStream, currentRequestId, inTransaction, PG_UNIQUE_VIOLATION, pgErrorOf, readStream } from '@voice/service-kit';
import { randomUUID } from 'node:crypto';
import { DataSource, type QueryRunner } from 'typeorm';
import { AgentRuleViolation, streamIdOf, type AgentState } from './agent.js';
import { fold } from './agent.decider.js';
import type { AgentEvent } from './agent.events.js';
import { AGENT_COLUMNS, rowToState, type AgentRow } from './agent.view.js';

export const AGENTS_SCHEMA = 'agents';

/** Something to wake after a commit so committed events leave for the bus at once. */
export interface CommitListener {
  nudge(): void;
}
export const COMMIT_LISTENER = Symbol('CommitListener');

/**
 * Persistence of agents: the event stream is the record, and the read model row
 * is projected in the same transaction (storing the stream version), so a
 * reader never sees an agent its history does not explain.
 */
@Injectable()
export class AgentStore {
  constructor(
    readonly dataSource: DataSource,
    @Inject(COMMIT_LISTENER) private readonly listener: CommitListener,
  ) {}

  /** One transaction; the relay is nudged once it committed. */
  async commit<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const result = await inTransaction(this.dataSource, work);
    this.listener.nudge();
    return result;
  }

  /** The agent folded from its stream (deleted agents included). */
  async load(db: QueryRunner | DataSource, agentId: string): Promise<AgentState | undefined> {
    const stored = await readStream(db, AGENTS_SCHEMA, streamIdOf(agentId));
    return fold(stored.map((e) => ({ type: e.type, data: e.data }) as AgentEvent));
  }

  /**
   * Append after `before.version` (WrongExpectedVersion if someone else got
   * there first) and project the result. Unique-index violations of the read
   * model are the database-enforced invariants and become domain errors.
   */
  async append(runner: QueryRunner, before: AgentState | undefined, events: AgentEvent[], command: string): Promise<AgentState> {
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
    return after;
  }

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
      if (pg.code === PG_UNIQUE_VIOLATION && pg.constraint === 'agents_account_name_key') {
        throw new AgentRuleViolation({ code: 'duplicate_name', field: 'name', message: `An agent named "${state.name}" already exists in this account.` });
      }
      if (pg.code === PG_UNIQUE_VIOLATION && pg.constraint === 'agents_phone_number_key') {
        throw new AgentRuleViolation({ code: 'phone_number_in_use', field: 'phone_number', message: `${state.phone_number} is already used by another agent.` });
      }
      throw err;
    }
  }

  /** The read-model row of a live (not deleted) agent of the account. */
  async findLive(accountId: string, agentId: string): Promise<AgentState | undefined> {
    const [row] = await this.dataSource.query<AgentRow[]>(
      `SELECT ${AGENT_COLUMNS.join(', ')} FROM agents.agents WHERE id = $1 AND account_id = $2 AND status <> 'deleted'`,
      [agentId, accountId],
    );
    return row ? rowToState(row) : undefined;
  }
}
