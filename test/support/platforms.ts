/**
 * The bundled platform simulators as the voice platforms of a test: one pair per test system, and the
 * integration bodies that point an account at them.
 */
import { randomBytes } from 'node:crypto';
import { startSimulators, type RunningSimulators } from '@voice/platform-simulators';
import type { ApiClient } from './http.js';

export type TestPlatform = 'platform_a' | 'platform_b';

export interface TestPlatforms {
  simulators: RunningSimulators;
  /** The bearer key the simulators accept. */
  apiKey: string;
  webhookSecret: string;
  /** The PUT /v1/integrations/{platform} body pointing at the platform's simulator. */
  integrationBody(platform: TestPlatform): { api_key: string; webhook_secret: string; base_url: string };
  stop(): Promise<void>;
}

export async function startTestPlatforms(): Promise<TestPlatforms> {
  const apiKey = `sim_${randomBytes(10).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(12).toString('hex')}`;
  const simulators = await startSimulators({ apiKeys: [apiKey], webhookSecret });
  return {
    simulators,
    apiKey,
    webhookSecret,
    integrationBody: (platform) => ({
      api_key: apiKey,
      webhook_secret: webhookSecret,
      base_url: platform === 'platform_a' ? simulators.urls.platformA : simulators.urls.platformB,
    }),
    stop: () => simulators.stop(),
  };
}

/** PUT an integration for each platform through the API; throws unless each answers 200. */
export async function configureIntegrations(api: ApiClient, platforms: TestPlatforms, which: readonly string[]): Promise<void> {
  for (const platform of which as TestPlatform[]) {
    const res = await api.put(`/v1/integrations/${platform}`, platforms.integrationBody(platform));
    if (res.status !== 200) throw new Error(`integration ${platform}: ${res.status} ${res.text}`);
  }
}
