/**
 * The voice platforms, one line each, and what is looked up by platform: the management adapters and their
 * settings from the environment. A new platform is a folder beside platform-a/ and a line in VOICE_PLATFORMS.
 */
import type { VoicePlatform } from '@voice/contracts';
import type { ConfigReader } from '@voice/service-kit';
import { ManagementAdapter } from './management-adapter.js';
import { PLATFORM_A } from './platform-a/index.js';
import { PLATFORM_B } from './platform-b/index.js';
import { PLATFORM_CALL_TIMEOUT_MS, type PlatformHttpOptions } from './platform-http.js';
import type { VoicePlatformDefinition } from './voice-platform-definition.js';
import type { VoicePlatformAdapter } from './voice-platform.port.js';
import type { WebhookHeaders, WebhookVerdict } from './webhook-signature.js';

export const VOICE_PLATFORM_DEFINITIONS: Readonly<Record<VoicePlatform, VoicePlatformDefinition>> = {
  platform_a: PLATFORM_A,
  platform_b: PLATFORM_B,
};

/** The platform's definition; a name no platform has is a programming error. */
export function voicePlatform(platform: VoicePlatform): VoicePlatformDefinition {
  const definition = (VOICE_PLATFORM_DEFINITIONS as Partial<Record<string, VoicePlatformDefinition>>)[platform];
  if (!definition) throw new RangeError(`unknown voice platform: ${String(platform)}`);
  return definition;
}

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

/** The management adapter of one platform. */
export function managementAdapter(platform: VoicePlatform, options: PlatformHttpOptions = {}): ManagementAdapter {
  return new ManagementAdapter(voicePlatform(platform).management, options);
}

export function createVoicePlatformAdapters(options: PlatformHttpOptions = {}): VoicePlatformAdapters {
  return new VoicePlatformAdapters(Object.values(VOICE_PLATFORM_DEFINITIONS).map((definition) => new ManagementAdapter(definition.management, options)));
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

/** A webhook delivery's signature checked the platform's way (platform-<name>/signature.ts). */
export function verifyWebhook(platform: VoicePlatform, rawBody: Buffer, headers: WebhookHeaders, secret: string, nowMs: number): WebhookVerdict {
  return voicePlatform(platform).verifySignature(rawBody, headers, secret, nowMs);
}
