import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';

const PRUNE_EVERY_MS = 60 * 60_000;

/**
 * A table's clean-up, hourly in every gateway replica and once at start: each prune is an idempotent DELETE,
 * so replicas need no coordination, and a failed one is only logged (the next hour tries again).
 */
export abstract class HourlyPrune implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  protected constructor(
    private readonly pruneLogger: Logger,
    /** What is pruned, for the log lines, e.g. "idempotency keys past their 24 hours". */
    private readonly what: string,
  ) {}

  /** Deletes what is due; resolves with how many rows went. */
  protected abstract prune(): Promise<number>;

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.pruneNow(), PRUNE_EVERY_MS);
    this.timer.unref();
    void this.pruneNow();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async pruneNow(): Promise<number> {
    try {
      const pruned = await this.prune();
      if (pruned > 0) this.pruneLogger.info({ pruned }, `pruned ${this.what}`);
      return pruned;
    } catch (err) {
      this.pruneLogger.warn({ reason: (err as Error).message }, `could not prune ${this.what}; trying again in an hour`);
      return 0;
    }
  }
}
