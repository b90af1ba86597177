import type { DataSource, QueryRunner } from 'typeorm';
import type { Logger } from 'pino';
import { quoteIdent } from './database.js';
import { readCommittedAfter, type StoredEvent } from './event-store.js';

/** Where a committed row stands in commit order: the checkpoint is the last one relayed. */
export interface CommittedPosition {
  transaction_id: string;
  global_position: string;
}

export interface OutboxRelayOptions<Row extends CommittedPosition = StoredEvent> {
  dataSource: DataSource;
  schema: string;
  /** Checkpoint name; one relay per name runs at a time across all replicas. */
  name: string;
  /** Deliver one batch, in order; must resolve only once the bus acknowledged every row of it. */
  publish: (rows: Row[]) => Promise<void>;
  /**
   * Rows committed after the checkpoint, in (transaction_id, global_position) order, never one of a transaction
   * still in flight. The event table's events by default.
   */
  read?: (runner: QueryRunner, after: CommittedPosition, limit: number) => Promise<Row[]>;
  /** Runs after the checkpoint moved past `last` (an outbox table deletes what it relayed). */
  afterCheckpoint?: (runner: QueryRunner, last: CommittedPosition) => Promise<void>;
  logger: Logger;
  pollIntervalMs?: number;
  batchSize?: number;
}

/**
 * Relays committed events from the event table to the bus, at least once and in
 * commit order. The checkpoint advances only after the bus acknowledged, and the
 * reader never passes a transaction that is still in flight. A session advisory
 * lock elects one active relay among replicas; the others wait as hot standbys.
 */
export class OutboxRelay<Row extends CommittedPosition = StoredEvent> {
  private stopped = false;
  private loop?: Promise<void>;
  private wake?: () => void;

  constructor(private readonly options: OutboxRelayOptions<Row>) {}

  start(): void {
    this.loop = this.run();
  }

  /** Shorten the wait after a local append so the relay latency stays low. */
  nudge(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }

  private async run(): Promise<void> {
    const { dataSource, schema, name, logger } = this.options;
    const poll = this.options.pollIntervalMs ?? 100;
    while (!this.stopped) {
      let runner: QueryRunner | undefined;
      try {
        runner = dataSource.createQueryRunner();
        await runner.connect();
        const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [`relay:${schema}:${name}`]);
        if (!locked) {
          await runner.release();
          runner = undefined;
          await this.sleep(poll * 10);
          continue;
        }
        await runner.query(`INSERT INTO ${quoteIdent(schema)}.checkpoints (name) VALUES ($1) ON CONFLICT DO NOTHING`, [name]);
        while (!this.stopped) {
          const relayed = await this.relayBatch(runner);
          if (relayed === 0) await this.sleep(poll);
        }
      } catch (err) {
        if (!this.stopped) {
          logger.error({ err, relay: name }, 'outbox relay failed; retrying');
          await this.sleep(poll * 10);
        }
      } finally {
        if (runner && !runner.isReleased) {
          await runner.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
          await runner.release().catch(() => undefined);
        }
      }
    }
  }

  private async relayBatch(runner: QueryRunner): Promise<number> {
    const { schema, name, publish } = this.options;
    const s = quoteIdent(schema);
    const [checkpoint] = await runner.query(
      `SELECT transaction_id::text, global_position::text FROM ${s}.checkpoints WHERE name = $1`,
      [name],
    );
    const limit = this.options.batchSize ?? 256;
    const rows = this.options.read
      ? await this.options.read(runner, checkpoint, limit)
      : ((await readCommittedAfter(runner, schema, checkpoint, limit)) as unknown as Row[]);
    if (rows.length === 0) return 0;
    await publish(rows);
    const last = rows[rows.length - 1];
    await runner.query(
      `UPDATE ${s}.checkpoints SET transaction_id = $2::xid8, global_position = $3::bigint, updated_at = now() WHERE name = $1`,
      [name, last.transaction_id, last.global_position],
    );
    await this.options.afterCheckpoint?.(runner, last);
    return rows.length;
  }
}
