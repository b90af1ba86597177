/** The adapters by platform, and their settings from the environment. */
import type { VoicePlatform } from '@voice/contracts';
import type { ConfigReader } from '@voice/service-kit';
import { PlatformAAdapter } from './platform-a.adapter.js';
import { PlatformBAdapter } from './platform-b.adapter.js';
import { PLATFORM_CALL_TIMEOUT_MS, type PlatformHttpOptions } from './platform-http.js';
import type { VoicePlatformAdapter } from './voice-platform.port.js';

export const VOICE_PLATFORM_ADAPTERS = Symbol('VoicePlatformAdapters');

export class VoicePlatformAdapters {
  private readonly byPlatform: ReadonlyMap<VoicePlatform, VoicePlatformAdapter>;

  constructor(adapters: readonly VoicePlatformAdapter[]) {
    this.byPlatform = new Map(adapters.map((adapter) => [adapter.platform, adapter]));
  }

  for(platform: VoicePlatform): VoicePlatformAdapter {
    const adapter = this.byPlatform.get(platform);
    if (!adapter) throw new Error(`no adapter for voice platform ${platform}`);
    return adapter;
  }
}

export function createVoicePlatformAdapters(options: PlatformHttpOptions = {}): VoicePlatformAdapters {
  return new VoicePlatformAdapters([new PlatformAAdapter(options), new PlatformBAdapter(options)]);
}

/**
 * ALLOW_PRIVATE_PLATFORM_URLS (default false): let platform base URLs reach
 * internal addresses, for platforms run inside the operator's network.
 * PLATFORM_REQUEST_TIMEOUT_MS (default 5000): deadline of one platform call.
 */
export function platformHttpOptionsFrom(config: ConfigReader): PlatformHttpOptions {
  return {
    allowPrivate: config.flag('ALLOW_PRIVATE_PLATFORM_URLS', false),
    timeoutMs: config.int('PLATFORM_REQUEST_TIMEOUT_MS', PLATFORM_CALL_TIMEOUT_MS, { min: 100, max: 60_000 }),
  };
}
