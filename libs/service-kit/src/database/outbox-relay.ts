import type { DataSource, QueryRunner } from 'typeorm';
import type { Logger } from 'pino';
import { quoteIdent } from './database.js';
import { readCommittedAfter, type StoredEvent } from './event-store.js';

export interface OutboxRelayOptions {
  dataSource: DataSource;
  schema: string;
  /** Checkpoint name; one relay per name runs at a time across all replicas. */
  name: string;
  /** Deliver one event; must resolve only once the bus acknowledged it. */
  publish: (event: StoredEvent) => Promise<void>;
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
export class OutboxRelay {
  private stopped = false;
  private loop?: Promise<void>;
  private wake?: () => void;

  constructor(private readonly options: OutboxRelayOptions) {}

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
    const events = await readCommittedAfter(runner, schema, checkpoint, this.options.batchSize ?? 256);
    if (events.length === 0) return 0;
    for (const event of events) await publish(event);
    const last = events[events.length - 1];
    await runner.query(
      `UPDATE ${s}.checkpoints SET transaction_id = $2::xid8, global_position = $3::bigint, updated_at = now() WHERE name = $1`,
      [name, last.transaction_id, last.global_position],
    );
    return events.length;
  }
}
