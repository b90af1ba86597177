/**
 * Runs platform-sync plans against the voice platforms: one adapter call per
 * step (find-or-create is a search then, if needed, a create), the facts
 * after each step handed to `onStep` so the caller can record progress, and
 * every failure classified as "retry later" or "permanent" with our error code.
 *
 * `syncAgentToPlatforms` plans, runs, and plans again until the plan is empty
 * (bounded): a platform agent or number that vanished on the platform (404 on
 * update or bind) is forgotten and the next plan recreates it.
 *
 * Connections come from the account's integrations (credentials decrypted by
 * the caller); no connection for a platform the plan needs is permanent
 * `platform_not_configured`.
 */
import type { VoicePlatform } from '@voice/contracts';
import { PlatformCallFailed } from '@voice/voice-platforms';
import { PLATFORM_RETRY_POLICY, retryDelay, type RetryPolicy } from '@voice/voice-platforms';
import type { PlatformConnection, PlatformNumber, VoicePlatformAdapter } from '@voice/voice-platforms';
import {
  applyStep, factsOf, planPlatformSync, specChanges, type DesiredPlatformAgent, type PlatformSyncStep, type StepResult, type SyncFacts,
} from './platform-sync.decider.js';
import type { SyncError } from './platform-sync.events.js';

export interface PlatformSyncRunOptions {
  adapters: { for(platform: VoicePlatform): VoicePlatformAdapter };
  /** The account's connection to a platform, from its integration; undefined when it has none. */
  connectionFor(platform: VoicePlatform): PlatformConnection | undefined | Promise<PlatformConnection | undefined>;
  /** Called after each successful step with the facts it produced (record them before the next step to bound crash loss). */
  onStep?(facts: SyncFacts, step: PlatformSyncStep): void | Promise<void>;
  /**
   * An imported number the account gave up earlier and left registered (unbound) on the platform: adopted (bound)
   * instead of imported again. Only looked up: the caller takes it out of the park once the step is recorded.
   */
  adoptParkedNumber?(platform: VoicePlatform, phoneNumber: string): Promise<PlatformNumber | undefined>;
  /** An imported number was let go and stays registered, unbound, on the platform. */
  parkNumber?(platform: VoicePlatform, number: PlatformNumber): Promise<void>;
  /** Retries of this sync so far (0 on the first attempt): the backoff grows with it. */
  attempt?: number;
  retryPolicy?: RetryPolicy;
  random?: () => number;
}

export type PlatformSyncOutcome =
  | { kind: 'synced'; facts: SyncFacts }
  /** Transient: run again after `retryAfterMs` (never less than the platform's Retry-After, up to the policy's bound). */
  | { kind: 'retry'; facts: SyncFacts; step: PlatformSyncStep; error: SyncError; retryAfterMs: number }
  /** Permanent: retrying the same is pointless until something changes (credentials, the agent, the integration). */
  | { kind: 'failed'; facts: SyncFacts; step: PlatformSyncStep; error: SyncError };

/** How many plans one run makes at most (each vanished agent or number costs one more). */
const MAX_PLANS = 4;

class MissingConnection extends Error {
  constructor(readonly platform: VoicePlatform) {
    super(`no ${platform} integration for the account`);
  }
}

/** Plans, runs and re-plans until the platforms hold `desired` (or a step fails). */
export async function syncAgentToPlatforms(desired: DesiredPlatformAgent, facts: SyncFacts, options: PlatformSyncRunOptions): Promise<PlatformSyncOutcome> {
  let current = facts;
  for (let round = 0; round < MAX_PLANS; round += 1) {
    const plan = planPlatformSync(desired, current);
    if (plan.length === 0) return { kind: 'synced', facts: current };
    const outcome = await executePlatformSync(plan, current, options);
    if (outcome.kind !== 'vanished') return outcome;
    current = outcome.facts;
    await options.onStep?.(current, outcome.step);
  }
  const plan = planPlatformSync(desired, current);
  if (plan.length === 0) return { kind: 'synced', facts: current };
  const error = { code: 'platform_unavailable', message: 'the platform keeps losing what was just created; trying again later' };
  return { kind: 'retry', facts: current, step: plan[0], error, retryAfterMs: delay(options, undefined) };
}

/**
 * Runs `plan` from `facts`, step by step. `vanished`: the agent or number a
 * step addressed is gone on the platform; the facts returned have forgotten it
 * and a new plan is needed.
 */
export async function executePlatformSync(
  plan: readonly PlatformSyncStep[],
  facts: SyncFacts,
  options: PlatformSyncRunOptions,
): Promise<PlatformSyncOutcome | { kind: 'vanished'; facts: SyncFacts; step: PlatformSyncStep }> {
  let current = facts;
  for (const step of plan) {
    try {
      const result = await executeStep(step, current, options);
      current = applyStep(current, step, result);
    } catch (error) {
      if (error instanceof MissingConnection) {
        return { kind: 'failed', facts: current, step, error: { code: 'platform_not_configured', message: error.message } };
      }
      if (!(error instanceof PlatformCallFailed)) throw error;
      if (error.kind === 'not_found') return { kind: 'vanished', facts: forgetVanished(current, step), step };
      return classify(error, current, step, options);
    }
    await options.onStep?.(current, step);
  }
  return { kind: 'synced', facts: current };
}

/** One step's platform calls; what it returns is the StepResult for applyStep. */
export async function executeStep(step: PlatformSyncStep, facts: SyncFacts, options: PlatformSyncRunOptions): Promise<StepResult> {
  const connection = await options.connectionFor(step.platform);
  if (!connection) throw new MissingConnection(step.platform);
  const adapter = options.adapters.for(step.platform);
  const recorded = factsOf(facts, step.platform);
  const agentId = recorded.platform_agent_id;
  const number = recorded.number;
  switch (step.type) {
    case 'find_or_create_agent': {
      const found = await adapter.findAgentByExternalId(connection, step.spec.external_id);
      if (!found) return adapter.createAgent(connection, step.spec);
      // Created before a crash, possibly from an older spec: make it what we now record.
      await adapter.updateAgent(connection, { ...found, external_id: step.spec.external_id }, specChanges(null, step.spec));
      return found;
    }
    case 'update_agent':
      await adapter.updateAgent(connection, { platform_agent_id: required(agentId, step), external_id: step.spec.external_id }, step.changes);
      return undefined;
    case 'acquire_number': {
      const bindTo = step.bind ? required(agentId, step) : null;
      const parked = step.phone_number !== null ? await options.adoptParkedNumber?.(step.platform, step.phone_number) : undefined;
      if (parked) {
        if (bindTo !== null) await adapter.bindNumber(connection, parked, bindTo);
        return parked;
      }
      if (step.phone_number !== null) return adapter.acquireNumber(connection, { phone_number: step.phone_number, platform_agent_id: bindTo });
      return adapter.acquireNumber(connection, { ...(step.area_code && { area_code: step.area_code }), platform_agent_id: bindTo });
    }
    case 'bind_number':
      await adapter.bindNumber(connection, required(number, step), required(agentId, step));
      return undefined;
    case 'unbind_number':
      await adapter.bindNumber(connection, required(number, step), null);
      return undefined;
    case 'release_number':
      if (!number) return undefined;
      // A purchased number is released; an imported one (the customer's) is only unbound, never deleted.
      if (step.release) await adapter.releaseNumber(connection, number);
      else if (await unbindIfPresent(adapter, connection, number)) await options.parkNumber?.(step.platform, number);
      return undefined;
    case 'delete_agent':
      if (agentId !== null) await adapter.deleteAgent(connection, agentId);
      return undefined;
  }
}

/** Whether the number was still there (and is now unbound). */
async function unbindIfPresent(adapter: VoicePlatformAdapter, connection: PlatformConnection, number: NonNullable<ReturnType<typeof factsOf>['number']>): Promise<boolean> {
  try {
    await adapter.bindNumber(connection, number, null);
    return true;
  } catch (error) {
    // Already gone from the platform: nothing left to unbind.
    if (!(error instanceof PlatformCallFailed && error.kind === 'not_found')) throw error;
    return false;
  }
}

function required<T>(value: T | null, step: PlatformSyncStep): T {
  if (value === null) throw new Error(`${step.type} on ${step.platform}: nothing recorded to act on (the plan was not run in order)`);
  return value;
}

/** The agent or number the step addressed no longer exists on the platform. */
function forgetVanished(facts: SyncFacts, step: PlatformSyncStep): SyncFacts {
  const recorded = factsOf(facts, step.platform);
  const numberStep = step.type === 'bind_number' || step.type === 'unbind_number';
  const next = numberStep ? { ...recorded, number: null } : { ...recorded, platform_agent_id: null, spec: null };
  const result: SyncFacts = { ...facts };
  if (next.platform_agent_id === null && next.spec === null && next.number === null) delete result[step.platform];
  else result[step.platform] = next;
  return result;
}

function delay(options: PlatformSyncRunOptions, retryAfterMs: number | undefined): number {
  return retryDelay(options.attempt ?? 0, retryAfterMs, options.retryPolicy ?? PLATFORM_RETRY_POLICY, options.random);
}

function classify(error: PlatformCallFailed, facts: SyncFacts, step: PlatformSyncStep, options: PlatformSyncRunOptions): PlatformSyncOutcome {
  const message = error.message;
  const withField = error.field !== undefined ? { field: error.field } : {};
  switch (error.kind) {
    case 'transient':
    case 'not_found':
      return { kind: 'retry', facts, step, error: { code: 'platform_unavailable', message }, retryAfterMs: delay(options, error.retryAfterMs) };
    case 'invalid_credentials':
      return { kind: 'failed', facts, step, error: { code: 'invalid_platform_credentials', message } };
    case 'base_url_refused':
      return { kind: 'failed', facts, step, error: { code: 'platform_base_url_refused', message, ...withField } };
    case 'rejected':
      return { kind: 'failed', facts, step, error: { code: 'platform_rejected', message, ...withField } };
    case 'number_in_use':
      return { kind: 'failed', facts, step, error: { code: 'phone_number_in_use', message, field: 'phone_number' } };
    case 'number_unavailable':
      return { kind: 'failed', facts, step, error: { code: 'phone_number_unavailable', message, ...withField } };
  }
}
