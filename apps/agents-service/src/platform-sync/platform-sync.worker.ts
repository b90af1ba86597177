/**
 * The background side of the platform sync: every poll it takes the agents
 * whose work row is due (retries after their backoff, changes whose request
 * stopped waiting, rows a dead process left) and syncs them, at most
 * `concurrency` at once per process. Replicas poll the same table; the
 * per-agent lock makes sure one agent is synced by one of them at a time, and
 * a row stays until a run settles it, so nothing is lost to a crash.
 */
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { PLATFORM_SYNC_SETTINGS, PlatformSyncHandler, type PlatformSyncSettings } from './platform-sync.handler.js';
import { PlatformSyncStore } from './platform-sync.store.js';

/** A run that threw (the database, a defect) is tried again after this long rather than at every poll. */
const AFTER_UNEXPECTED_FAILURE_MS = 30_000;
/** The largest agent version (an integer column): "whatever version is wanted". */
const ANY_VERSION = 2_147_483_647;

@Injectable()
export class PlatformSyncWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Map<string, Promise<void>>();
  private wake: (() => void) | undefined;

  constructor(
    private readonly handler: PlatformSyncHandler,
    private readonly store: PlatformSyncStore,
    @Inject(PLATFORM_SYNC_SETTINGS) private readonly settings: PlatformSyncSettings,
  ) {}

  private get logger() {
    return this.settings.logger;
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const free = this.settings.concurrency - this.inFlight.size;
        if (free > 0) for (const agentId of await this.store.dueAgents(free + this.inFlight.size)) if (!this.inFlight.has(agentId)) this.start(agentId);
      } catch (err) {
        this.logger.warn({ err }, 'platform sync: could not read due work');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.settings.pollIntervalMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  private start(agentId: string): void {
    if (this.inFlight.size >= this.settings.concurrency) return;
    const job = this.handler
      .sync(agentId)
      .then((result) => {
        this.logger.debug({ agent_id: agentId, outcome: result.kind }, 'platform sync ran');
        if (result.kind === 'retry') this.logger.info({ agent_id: agentId, code: result.error.code, retry_in_ms: result.retryAfterMs }, 'platform sync will retry');
        if (result.kind === 'failed') this.logger.warn({ agent_id: agentId, code: result.error.code }, 'platform sync refused');
      })
      .catch(async (err: unknown) => {
        this.logger.error({ err, agent_id: agentId }, 'platform sync run failed');
        await this.store.retryLater(agentId, ANY_VERSION, AFTER_UNEXPECTED_FAILURE_MS).catch(() => undefined);
      })
      .finally(() => this.inFlight.delete(agentId));
    this.inFlight.set(agentId, job);
  }
}
