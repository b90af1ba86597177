import type { ConfigReader } from '@voice/service-kit';
import type { PlatformSyncSettings } from './platform-sync.handler.js';

/**
 * PLATFORM_SYNC_INLINE_MS (8 s): how long a create, update or delete waits for its platform sync before
 * answering with platform_sync pending; PLATFORM_SYNC_CONCURRENCY (4) syncs at once per process;
 * the background worker looks for due work every PLATFORM_SYNC_POLL_MS (1 s); every
 * PLATFORM_RECONCILE_INTERVAL_MS (60 s) each account's agents are compared with each of its platforms.
 */
export const DEFAULT_PLATFORM_SYNC: Omit<PlatformSyncSettings, 'logger'> = { inlineBoundMs: 8_000, concurrency: 4, pollIntervalMs: 1_000, reconcileIntervalMs: 60_000 };

/** The platform sync's settings from the environment, for main.ts and `npm start`'s one-process mode alike. Problems are reported by `config.done()`. */
export function platformSyncSettingsFrom(config: ConfigReader): Omit<PlatformSyncSettings, 'logger'> {
  return {
    inlineBoundMs: config.int('PLATFORM_SYNC_INLINE_MS', DEFAULT_PLATFORM_SYNC.inlineBoundMs, { min: 0, max: 10_000 }),
    concurrency: config.int('PLATFORM_SYNC_CONCURRENCY', DEFAULT_PLATFORM_SYNC.concurrency, { min: 1, max: 32 }),
    pollIntervalMs: config.int('PLATFORM_SYNC_POLL_MS', DEFAULT_PLATFORM_SYNC.pollIntervalMs, { min: 50, max: 60_000 }),
    // 0 turns the reconciliation off (a platform edited behind our back then stays so until the agent changes).
    reconcileIntervalMs: config.int('PLATFORM_RECONCILE_INTERVAL_MS', DEFAULT_PLATFORM_SYNC.reconcileIntervalMs, { min: 0, max: 86_400_000 }),
  };
}
