import type { Logger } from 'pino';
import { DataSource } from 'typeorm';

/** Events are kept this long (GET /v1/events shows 30 days); their deliveries and attempts go with them. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** How often the sweep runs; each run deletes at most BATCH events per statement, until none is left. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 5_000;

/** Deletes the events older than the retention, in batches, so no statement holds many rows for long. */
export class EventsRetention {
  private timer?: NodeJS.Timeout;

  constructor(private readonly dataSource: DataSource, private readonly logger: Pick<Logger, 'error'>) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep(new Date()).catch((err: unknown) => this.logger.error({ err }, 'purging old events failed')), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** How many events older than the retention at `now` were deleted. */
  async sweep(now: Date): Promise<number> {
    const before = new Date(now.getTime() - EVENT_RETENTION_MS);
    let deleted = 0;
    for (;;) {
      const [, count]: [unknown[], number] = await this.dataSource.query(
        'DELETE FROM notifications.events WHERE id IN (SELECT id FROM notifications.events WHERE created_at < $1 LIMIT $2)',
        [before, BATCH],
      );
      deleted += count;
      if (count < BATCH) return deleted;
    }
  }
}
