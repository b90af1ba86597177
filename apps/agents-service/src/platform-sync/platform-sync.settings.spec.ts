import { describe, expect, it } from '@jest/globals';
import { ConfigError, readConfig } from '@voice/service-kit';
import { DEFAULT_PLATFORM_SYNC, platformSyncSettingsFrom } from './platform-sync.settings.js';

describe('platformSyncSettingsFrom', () => {
  it('gives the defaults when nothing is set', () => {
    const config = readConfig({});
    expect(platformSyncSettingsFrom(config)).toEqual(DEFAULT_PLATFORM_SYNC);
    config.done();
  });

  it('reads every setting, the reconciliation interval included (0 turns it off)', () => {
    const config = readConfig({
      PLATFORM_SYNC_INLINE_MS: '2000', PLATFORM_SYNC_CONCURRENCY: '2', PLATFORM_SYNC_POLL_MS: '250', PLATFORM_RECONCILE_INTERVAL_MS: '0',
    });
    expect(platformSyncSettingsFrom(config)).toEqual({ inlineBoundMs: 2000, concurrency: 2, pollIntervalMs: 250, reconcileIntervalMs: 0 });
    config.done();
  });

  it('reports a value out of range when the settings are done', () => {
    const config = readConfig({ PLATFORM_RECONCILE_INTERVAL_MS: '-5' });
    platformSyncSettingsFrom(config);
    expect(() => config.done()).toThrow(ConfigError);
  });
});
