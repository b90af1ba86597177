/**
 * The background reconciliation: at start and then every `reconcileIntervalMs`, each account's synced agents are
 * compared with what each of its platforms lists (agents and numbers, page by page: a few calls per account and
 * platform, whatever the number of agents), and every drift found is set back through the platform sync
 * (PlatformSyncHandler.repair). We are the source of truth: the platform is made to hold what we recorded.
 *
 * Replicas share the work by scope (account × platform, ReconcileStore.takeDueScopes); within a scope the repair
 * of one agent takes the agent's sync lock and goes ahead only if its sync stream has not moved since it was read
 * before the listing, so a drift is repaired once even when a sync or another replica got there first.
 */
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { PlatformCallFailed } from '@voice/voice-platforms';
import { PLATFORM_RETRY_POLICY, retryDelay } from '@voice/voice-platforms';
import { VOICE_PLATFORM_ADAPTERS, type VoicePlatformAdapters } from '@voice/voice-platforms';
import { factsOf } from '../platform-sync/platform-sync.decider.js';
import { PLATFORM_SYNC_SETTINGS, PlatformSyncHandler, type PlatformSyncSettings, type SyncRunResult } from '../platform-sync/platform-sync.handler.js';
import { PlatformSyncStore } from '../platform-sync/platform-sync.store.js';
import { findDrift, type RecordedAgent } from './drift.decider.js';
import { ReconcileStore, type ReconcileScope } from './reconcile.store.js';

/** Scopes one replica takes per look; the rest stay due for the next look (or another replica). */
const SCOPES_PER_LOOK = 10;
/** How often due scopes are looked for, at most: a scope's own interval decides when it is due. */
const LOOK_EVERY_MS = 5_000;

/** What one scope's reconciliation did (for logs and tests). */
export interface ScopeOutcome {
  scope: ReconcileScope;
  compared: number;
  repairs: Array<{ agent_id: string; result: SyncRunResult['kind'] }>;
  /** The listing failed: why, and when the scope is due again. */
  failed?: { code: string; retryInMs?: number };
}

@Injectable()
export class PlatformReconciler implements OnApplicationBootstrap, OnModuleDestroy {
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly store: ReconcileStore,
    private readonly syncStore: PlatformSyncStore,
    private readonly handler: PlatformSyncHandler,
    @Inject(VOICE_PLATFORM_ADAPTERS) private readonly adapters: VoicePlatformAdapters,
    @Inject(PLATFORM_SYNC_SETTINGS) private readonly settings: PlatformSyncSettings,
  ) {}

  private get logger(): Logger {
    return this.settings.logger;
  }

  onApplicationBootstrap(): void {
    if (this.settings.reconcileIntervalMs <= 0) return;
    this.running = true;
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    await this.store.everyScopeDueNow().catch((err: unknown) => this.logger.warn({ err }, 'platform reconciliation: could not make the scopes due'));
    while (this.running) {
      try {
        await this.reconcileDueScopes();
      } catch (err) {
        this.logger.warn({ err }, 'platform reconciliation: a look failed');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(this.settings.reconcileIntervalMs, LOOK_EVERY_MS));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Takes the due scopes and reconciles them one after the other (one platform account's calls at a time). */
  async reconcileDueScopes(): Promise<ScopeOutcome[]> {
    const outcomes: ScopeOutcome[] = [];
    for (const scope of await this.store.takeDueScopes(SCOPES_PER_LOOK, this.settings.reconcileIntervalMs)) {
      if (!this.running && this.loop) break;
      outcomes.push(await this.reconcileScope(scope));
    }
    return outcomes;
  }

  private async reconcileScope(scope: ReconcileScope): Promise<ScopeOutcome> {
    const outcome: ScopeOutcome = { scope, compared: 0, repairs: [] };
    // Read before the listing: a repair goes ahead only if nothing was recorded since (see the header).
    const recorded = await this.recordedAgents(scope);
    outcome.compared = recorded.length;
    if (recorded.length === 0) return outcome;
    const connection = await this.handler.connection(scope.account_id, scope.platform);
    if (!connection) return outcome;
    const adapter = this.adapters.for(scope.platform);
    let listing;
    try {
      // Numbers before agents: a platform that deletes an agent unbinds its numbers in the same stroke, so a deletion
      // between the two listings reads as the agent missing (its number still bound to it), never as a listed agent
      // whose number was unbound, which would be repaired by binding the number to an agent that is gone.
      const numbers = await adapter.listNumbers(connection);
      listing = { agents: await adapter.listAgents(connection), numbers };
    } catch (error) {
      if (!(error instanceof PlatformCallFailed)) throw error;
      if (error.kind === 'invalid_credentials') await this.handler.credentialsRefused(scope.account_id, scope.platform, connection);
      return { ...outcome, failed: await this.listingFailed(scope, error) };
    }
    await this.store.scopeDone(scope);
    const repairs = findDrift(recorded, listing);
    const drifted = new Set(repairs.map((repair) => repair.agent_id));
    await this.store.markReconciled(
      recorded.filter((agent) => !drifted.has(agent.agent_id)).map((agent) => agent.agent_id),
      new Date().toISOString(),
    );
    // Each repair waits for a sync slot (PLATFORM_SYNC_CONCURRENCY per process), as any sync does.
    outcome.repairs = await Promise.all(
      repairs.map(async (repair) => {
        try {
          const result = await this.handler.repair({ ...repair, platform: scope.platform });
          return { agent_id: repair.agent_id, result: result.kind };
        } catch (err) {
          this.logger.error({ err, agent_id: repair.agent_id }, 'platform reconciliation: a repair failed');
          return { agent_id: repair.agent_id, result: 'retry' as const };
        }
      }),
    );
    if (repairs.length > 0) this.logger.info({ ...scope, compared: recorded.length, repairs: outcome.repairs }, 'platform reconciliation repaired drift');
    return outcome;
  }

  private async recordedAgents(scope: ReconcileScope): Promise<RecordedAgent[]> {
    const adapter = this.adapters.for(scope.platform);
    const agents: RecordedAgent[] = [];
    for (const { id, status } of await this.store.syncedAgents(scope)) {
      const { record, version } = await this.syncStore.loadRecord(id);
      const facts = factsOf(record.facts, scope.platform);
      agents.push({ agent_id: id, status, sync_version: version, facts, stored: facts.spec && adapter.storedFields(facts.spec) });
    }
    return agents;
  }

  /** A listing that failed is tried again: transient after the backoff (never before a Retry-After), otherwise next interval. */
  private async listingFailed(scope: ReconcileScope, error: PlatformCallFailed): Promise<ScopeOutcome['failed']> {
    if (error.kind !== 'transient') {
      this.logger.warn({ ...scope, kind: error.kind, message: error.message }, 'platform reconciliation: the platform refused the listing');
      return { code: error.kind };
    }
    const retryInMs = retryDelay(scope.attempt, error.retryAfterMs, this.settings.retryPolicy ?? PLATFORM_RETRY_POLICY);
    await this.store.retryScope(scope, retryInMs);
    this.logger.info({ ...scope, message: error.message, retry_in_ms: retryInMs }, 'platform reconciliation: listing failed, will retry');
    return { code: error.kind, retryInMs };
  }
}
