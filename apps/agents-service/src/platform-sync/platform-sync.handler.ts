/**
 * Brings one agent's voice platforms to what its event stream says, under the
 * agent's sync lock, in one pass: load the agent, its sync work and record and
 * the account's connections (stores) → decide what the platform should hold
 * (platform-sync.decider.ts) → run the platform calls (platform-sync.executor.ts),
 * recording each step's facts before the next call → decide how the run settles
 * (sync-run.decider.ts) → record it (platform-sync.store.ts).
 *
 * Called inline by the commands (create waits for it, bounded) and by the
 * background worker for everything else: retries, changes whose request gave
 * up waiting, work left by a process that died.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { VoicePlatform } from '@voice/contracts';
import type { Logger } from 'pino';
import { WrongExpectedVersion } from '@voice/service-kit';
import type { AgentState } from '../agent/agent.js';
import type { PlatformSyncSummary } from './platform-sync.view.js';
import { handleChange } from '../agent/agent.command-handling.js';
import { decide } from '../agent/agent.decider.js';
import { AgentStore } from '../agent/agent.store.js';
import { INTEGRATIONS_SETTINGS, secretContext, type IntegrationsSettings } from '../integrations/integrations.settings.js';
import { credentialsRefusedReason } from '../integrations/integration.rules.js';
import { IntegrationStore, type SealedConnection } from '../integrations/integration.store.js';
import { VOICE_PLATFORM_ADAPTERS, type VoicePlatformAdapters } from '@voice/voice-platforms';
import type { RetryPolicy } from '@voice/voice-platforms';
import type { PlatformConnection } from '@voice/voice-platforms';
import { desiredPlatformAgent, type PlatformSyncStep, type SyncFacts } from './platform-sync.decider.js';
import { evolvePlatformSync, lostNumberToReplace, summaryOf, type PlatformSyncEvent, type SyncError } from './platform-sync.events.js';
import { syncAgentToPlatforms, type PlatformSyncOutcome } from './platform-sync.executor.js';
import { PlatformSyncStore } from './platform-sync.store.js';
import { acquiredNumber, driftFoundEvent, numberToAssign, progressedEvent, repairIsStale, settle, type DriftRepairRequest } from './sync-run.decider.js';

export type { DriftRepairRequest } from './sync-run.decider.js';

export const PLATFORM_SYNC_SETTINGS = Symbol('PlatformSyncSettings');

export interface PlatformSyncSettings {
  /** How long POST /v1/agents (and the other commands) wait for the agent's first sync before answering pending. */
  inlineBoundMs: number;
  /** Syncs one process runs at once (each holds a database connection for its lock). */
  concurrency: number;
  /** How often the background worker looks for due work. */
  pollIntervalMs: number;
  /** Backoff of transient failures (PLATFORM_RETRY_POLICY unless given: tests shorten it). */
  retryPolicy?: RetryPolicy;
  /** How often each account's agents are compared with each of its platforms (0: never). */
  reconcileIntervalMs: number;
  logger: Logger;
}

/**
 * What one run ended with; `busy`: another process or request holds the agent's sync (it will record the outcome);
 * `stale`: a drift repair whose agent moved on since the platform was read (synced, changed, or sync pending).
 * A run that settled carries the agent as it left it (a number it bought assigned) and the sync summary it
 * projected onto the agent's row: together, the agent's row as the run left it.
 */
export type SyncRunResult =
  | { kind: 'busy' }
  | { kind: 'stale' }
  | { kind: 'gone' }
  | { kind: 'synced'; agent: AgentState; summary: PlatformSyncSummary | null }
  | { kind: 'retry'; agent: AgentState; summary: PlatformSyncSummary | null; error: SyncError; retryAfterMs: number }
  | { kind: 'failed'; agent: AgentState; summary: PlatformSyncSummary | null; error: SyncError; step: PlatformSyncStep };

/** A counting semaphore: syncs beyond `concurrency` wait for a slot. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(size: number) {
    this.free = size;
  }
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    }
  }
}

@Injectable()
export class PlatformSyncHandler {
  private readonly slots: Slots;

  constructor(
    private readonly store: PlatformSyncStore,
    private readonly agents: AgentStore,
    private readonly integrations: IntegrationStore,
    @Inject(VOICE_PLATFORM_ADAPTERS) private readonly adapters: VoicePlatformAdapters,
    @Inject(INTEGRATIONS_SETTINGS) private readonly secrets: IntegrationsSettings,
    @Inject(PLATFORM_SYNC_SETTINGS) readonly settings: PlatformSyncSettings,
  ) {
    this.slots = new Slots(settings.concurrency);
  }

  /** One run for the agent, unless another holds its lock. */
  async sync(agentId: string): Promise<SyncRunResult> {
    return this.slots.run(async () => {
      const locked = await this.store.withAgentLock(agentId, () => this.run(agentId));
      return locked.busy ? { kind: 'busy' } : locked.value;
    });
  }

  /**
   * Sets the agent's platform back to ours after the reconciliation found it changed: under the agent's lock, and
   * only if nothing was recorded on its sync stream since the facts the drift was found against (so two replicas,
   * or a sync and a repair, never repair one drift twice), records the drift (the facts as the platform holds them)
   * and runs the ordinary sync from there.
   */
  async repair(request: DriftRepairRequest): Promise<SyncRunResult> {
    return this.slots.run(async () => {
      const locked = await this.store.withAgentLock(request.agent_id, () => this.run(request.agent_id, request));
      return locked.busy ? { kind: 'busy' } : locked.value;
    });
  }

  /** The account's connection to the platform, credentials opened; undefined without an integration. */
  async connection(accountId: string, platform: VoicePlatform): Promise<PlatformConnection | undefined> {
    return this.open((await this.integrations.connections(accountId)).find((c) => c.platform === platform));
  }

  /**
   * The platform refused the key a connection of `connection()` carried, outside a sync run (the reconciliation's
   * listing): the integration is marked so, and the first refusal of that key is announced. A key replaced since
   * is left alone.
   */
  async credentialsRefused(accountId: string, platform: VoicePlatform, refused: PlatformConnection): Promise<void> {
    const sealed = (await this.integrations.connections(accountId)).find((c) => c.platform === platform);
    if (!sealed || this.open(sealed)?.apiKey !== refused.apiKey) return;
    await this.integrations.markInvalidCredentials(accountId, platform, sealed.api_key_sealed, credentialsRefusedReason(platform, 'reconciliation'));
  }

  private async run(agentId: string, repair?: DriftRepairRequest): Promise<SyncRunResult> {
    let agent = await this.agents.current(agentId);
    const work = await this.store.work(agentId);
    if (!agent) {
      if (work) await this.store.finished(agentId, work.wanted_version);
      return { kind: 'gone' };
    }
    if (repair && repairIsStale(repair, agent, work !== undefined)) return { kind: 'stale' };
    const loaded = await this.store.loadRecord(agentId);
    if (repair && repairIsStale(repair, agent, false, loaded.version)) return { kind: 'stale' };
    const sealed = new Map<VoicePlatform, SealedConnection>((await this.integrations.connections(agent.account_id)).map((c) => [c.platform, c]));
    const accountId = agent.account_id;
    let record = loaded.record;
    let syncVersion = loaded.version;
    let summary: PlatformSyncSummary | null = null;
    const append = async (events: PlatformSyncEvent[], at: string, queueFor?: AgentState) => {
      for (const event of events) record = evolvePlatformSync(record, event);
      ({ version: syncVersion, projected: summary } = await this.store.record(agentId, syncVersion, events, { ...summaryOf(record), last_attempt_at: at }, queueFor));
    };

    if (repair) {
      // Recorded with the sync work queued again, so a crash before the repair leaves it to the worker.
      const at = new Date().toISOString();
      await append([driftFoundEvent(agent, repair, at)], at, agent);
      this.settings.logger.info({ agent_id: agent.id, platform: repair.platform, drift: repair.drift }, 'platform drift found: setting it back');
    }
    let desired = desiredPlatformAgent(agent, sealed.get(agent.voice_platform)?.webhook_url ?? '');
    // A bought number the platform lost went back to the carrier: a new one is bought and becomes the agent's
    // (recorded with the drift, so a retry by the worker buys too).
    const replacing = lostNumberToReplace(record, agent.phone_number);
    if (replacing !== undefined) desired = { ...desired, phone_number: null };

    const onStep = async (facts: SyncFacts, step: PlatformSyncStep) => {
      const at = new Date().toISOString();
      await append([progressedEvent(facts, step, agent!, at)], at);
      const acquired = acquiredNumber(facts, step);
      if (acquired === undefined) return;
      // Recorded as the agent's: a number adopted from the park leaves it only now, so a failed bind loses nothing.
      await this.store.unparkNumber(accountId, step.platform, acquired);
      const assign = numberToAssign(acquired, agent!, replacing);
      if (assign) agent = await this.assignNumber(agent!, assign.phone_number, assign.replacing);
    };

    let outcome: PlatformSyncOutcome;
    try {
      outcome = await syncAgentToPlatforms(desired, record.facts, {
        adapters: this.adapters,
        connectionFor: (platform) => this.open(sealed.get(platform)),
        onStep,
        adoptParkedNumber: (platform, phoneNumber) => this.store.parkedNumber(accountId, platform, phoneNumber),
        parkNumber: (platform, number) => this.store.parkNumber(accountId, platform, number),
        attempt: work?.attempt ?? 0,
        retryPolicy: this.settings.retryPolicy,
      });
    } catch (error) {
      // Another run recorded first: it holds the newer facts, and the work row still says what is wanted.
      if (error instanceof WrongExpectedVersion) return { kind: 'busy' };
      throw error;
    }

    const at = new Date().toISOString();
    const settlement = settle(agent, outcome, record, at, work?.wanted_version === agent.version ? work.attempt : 0);
    await append(settlement.events, at);
    switch (settlement.kind) {
      case 'synced':
        await this.store.finished(agent.id, agent.version);
        return { kind: 'synced', agent, summary };
      case 'failed': {
        const refused = settlement.refusedCredentials && sealed.get(settlement.refusedCredentials);
        if (refused) {
          await this.integrations.markInvalidCredentials(agent.account_id, refused.platform, refused.api_key_sealed, credentialsRefusedReason(refused.platform, 'sync'));
        }
        await this.store.parked(agent.id, agent.version);
        return { kind: 'failed', agent, summary, error: settlement.error, step: settlement.step };
      }
      case 'retry':
        await this.store.retryLater(agent.id, agent.version, settlement.retryAfterMs);
        return { kind: 'retry', agent, summary, error: settlement.error, retryAfterMs: settlement.retryAfterMs };
    }
  }

  /** The number the platform sold becomes the agent's (an event on the agent's own stream: its phone_number changed). */
  private async assignNumber(agent: AgentState, phoneNumber: string, replacing?: string): Promise<AgentState> {
    const { after } = await handleChange(
      this.agents,
      { accountId: agent.account_id, agentId: agent.id },
      (current) => decide({ type: 'AssignPhoneNumber', phone_number: phoneNumber, ...(replacing !== undefined && { replacing }), now: new Date().toISOString() }, current),
      { command: 'AssignPhoneNumber' },
    );
    return after;
  }

  private open(connection: SealedConnection | undefined): PlatformConnection | undefined {
    if (!connection) return undefined;
    const apiKey = this.secrets.secretBox.open(connection.api_key_sealed, secretContext(connection.account_id, connection.platform, 'api_key'));
    return { baseUrl: connection.base_url, apiKey };
  }
}
