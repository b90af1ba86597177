import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { IntegrationsRpc, AgentsRpc, type AgentReply, type IntegrationListReply, type IntegrationReply } from '@voice/contracts';
import { DEFAULT_API_KEY, PlatformASimulator } from '@voice/platform-simulators';
import { SecretBox } from '@voice/service-kit';
import { randomBytes } from 'node:crypto';
import { newAccount, startAgentsHarness, type AgentsHarness } from '../testing/agents-harness.js';
import { secretContext } from './integrations.settings.js';

const WEBHOOK_SECRET = 'whsec_0123456789abcdefWXYZ';

const PUBLIC_URL = 'http://127.0.0.1:8080';

describe('integrations over NATS, against the platform_a simulator', () => {
  let h: AgentsHarness;
  let strict: AgentsHarness;
  let simulator: PlatformASimulator;
  const box = new SecretBox({ current: randomBytes(32) });

  beforeAll(async () => {
    simulator = await PlatformASimulator.start();
    h = await startAgentsHarness('integrations', { secretBox: box, platformHttp: { allowPrivate: true, timeoutMs: 1000 } });
    strict = await startAgentsHarness('integrations_ssrf', { secretBox: box, platformHttp: { allowPrivate: false, timeoutMs: 1000 } });
  });
  afterAll(async () => {
    await h?.close();
    await strict?.close();
    await simulator?.stop();
  });

  const rows = async (harness: AgentsHarness, accountId: string) =>
    (await harness.db.query<Record<string, unknown>>('SELECT * FROM agents.integrations WHERE account_id = $1', [accountId])).rows;

  it('saves a verified integration with its secrets sealed, shows hints only, and a replacement keeps its id', async () => {
    const account = newAccount();
    const body = { api_key: DEFAULT_API_KEY, webhook_secret: WEBHOOK_SECRET, base_url: simulator.url };
    const { integration } = await h.rpc<IntegrationReply>(IntegrationsRpc.configure, { account, public_url: PUBLIC_URL, platform: 'platform_a', body });
    expect(integration).toEqual({
      id: expect.stringMatching(/^int_[0-9a-f]{24}$/),
      platform: 'platform_a',
      base_url: simulator.url,
      api_key_hint: DEFAULT_API_KEY.length >= 16 ? DEFAULT_API_KEY.slice(-4) : '',
      webhook_secret_hint: 'WXYZ',
      status: 'verified',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(integration)).not.toContain(WEBHOOK_SECRET);

    const [row] = await rows(h, account.id);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(DEFAULT_API_KEY);
    expect(stored).not.toContain(WEBHOOK_SECRET);
    expect(box.open(row.api_key_sealed as string, secretContext(account.id, 'platform_a', 'api_key'))).toBe(DEFAULT_API_KEY);
    expect(box.open(row.webhook_secret_sealed as string, secretContext(account.id, 'platform_a', 'webhook_secret'))).toBe(WEBHOOK_SECRET);
    expect(() => box.open(row.api_key_sealed as string, secretContext(account.id, 'platform_a', 'webhook_secret'))).toThrow();

    const replaced = await h.rpc<IntegrationReply>(IntegrationsRpc.configure, {
      account,
      public_url: PUBLIC_URL, platform: 'platform_a', body: { ...body, webhook_secret: 'another-secret-of-enough-length-9876' },
    });
    expect(replaced.integration.id).toBe(integration.id);
    expect(replaced.integration.created_at).toBe(integration.created_at);
    expect(replaced.integration.webhook_secret_hint).toBe('9876');
    expect(await h.rpc(IntegrationsRpc.get, { account_id: account.id, platform: 'platform_a' })).toEqual(replaced);
    expect(await h.rpc<IntegrationListReply>(IntegrationsRpc.list, { account_id: account.id })).toEqual({ items: [replaced.integration] });
  });

  it('refuses a wrong key with invalid_platform_credentials on api_key and stores nothing', async () => {
    const account = newAccount();
    const result = await h.attempt(IntegrationsRpc.configure, {
      account,
      public_url: PUBLIC_URL, platform: 'platform_a', body: { api_key: 'wrong-key-wrong-key', webhook_secret: WEBHOOK_SECRET, base_url: simulator.url },
    });
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'invalid_platform_credentials', field: 'api_key' }) });
    expect(await rows(h, account.id)).toEqual([]);
  });

  it('saves the integration as unreachable when the platform does not answer', async () => {
    const account = newAccount();
    const down = await PlatformASimulator.start();
    const url = down.url;
    await down.stop();
    const { integration } = await h.rpc<IntegrationReply>(IntegrationsRpc.configure, {
      account,
      public_url: PUBLIC_URL, platform: 'platform_a', body: { api_key: DEFAULT_API_KEY, webhook_secret: WEBHOOK_SECRET, base_url: url },
    });
    expect(integration.status).toBe('unreachable');
    expect(await rows(h, account.id)).toHaveLength(1);
  });

  it('refuses an internal base_url when private platform URLs are not allowed, before any call', async () => {
    const account = newAccount();
    const before = simulator.requests().length;
    const result = await strict.attempt(IntegrationsRpc.configure, {
      account,
      public_url: PUBLIC_URL, platform: 'platform_a', body: { api_key: DEFAULT_API_KEY, webhook_secret: WEBHOOK_SECRET, base_url: simulator.url },
    });
    expect(result).toEqual({ ok: false, error: expect.objectContaining({ code: 'invalid_platform_credentials', field: 'base_url' }) });
    expect(simulator.requests().length).toBe(before);
    expect(await rows(strict, account.id)).toEqual([]);
  });

  it('validates the platform, the entitlement and the body', async () => {
    const account = newAccount({ voice_platforms: ['platform_a'] });
    const body = { api_key: DEFAULT_API_KEY, webhook_secret: WEBHOOK_SECRET, base_url: simulator.url };
    expect(await h.attempt(IntegrationsRpc.configure, { account, public_url: PUBLIC_URL, platform: 'platform_c', body })).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'invalid_parameter', field: 'platform', valid_values: ['platform_a', 'platform_b'] }),
    });
    expect(await h.attempt(IntegrationsRpc.configure, { account, public_url: PUBLIC_URL, platform: 'platform_b', body })).toEqual({
      ok: false, error: expect.objectContaining({ code: 'platform_not_enabled' }),
    });
    expect(await h.attempt(IntegrationsRpc.configure, { account, public_url: PUBLIC_URL, platform: 'platform_a', body: { ...body, api_key: '' } })).toEqual({
      ok: false, error: expect.objectContaining({ code: 'invalid_parameter', field: 'api_key' }),
    });
    expect(await h.attempt(IntegrationsRpc.configure, { account, public_url: PUBLIC_URL, platform: 'platform_a', body: { api_key: 'x' } })).toEqual({
      ok: false, error: expect.objectContaining({ code: 'missing_required_field', field: 'webhook_secret' }),
    });
    expect(await h.attempt(IntegrationsRpc.configure, { account, public_url: PUBLIC_URL, platform: 'platform_a', body: { ...body, base_url: 'ftp://x.example/' } })).toEqual({
      ok: false, error: expect.objectContaining({ code: 'invalid_parameter', field: 'base_url' }),
    });
    expect(await h.attempt(IntegrationsRpc.configure, { account, public_url: PUBLIC_URL, platform: 'platform_a', body: { ...body, api_key: 'k'.repeat(501) } })).toEqual({
      ok: false, error: expect.objectContaining({ code: 'invalid_parameter', field: 'api_key' }),
    });
  });

  it('refuses to remove an integration while a live agent uses the platform, removes it after, then 404s', async () => {
    const account = newAccount();
    await h.rpc(IntegrationsRpc.configure, {
      account,
      public_url: PUBLIC_URL, platform: 'platform_a', body: { api_key: DEFAULT_API_KEY, webhook_secret: WEBHOOK_SECRET, base_url: simulator.url },
    });
    const { agent } = await h.rpc<AgentReply>(AgentsRpc.create, { account, body: { name: 'Desk', voice_platform: 'platform_a' } });
    expect(await h.attempt(IntegrationsRpc.remove, { account_id: account.id, platform: 'platform_a' })).toEqual({
      ok: false, error: expect.objectContaining({ code: 'integration_in_use', current: 1 }),
    });
    await h.rpc(AgentsRpc.delete, { account_id: account.id, agent_id: agent.id });
    expect(await h.rpc(IntegrationsRpc.remove, { account_id: account.id, platform: 'platform_a' })).toEqual({ removed: true });
    expect(await rows(h, account.id)).toEqual([]);
    expect(await h.attempt(IntegrationsRpc.remove, { account_id: account.id, platform: 'platform_a' })).toEqual({
      ok: false, error: expect.objectContaining({ code: 'not_found' }),
    });
    expect(await h.attempt(IntegrationsRpc.get, { account_id: account.id, platform: 'platform_a' })).toEqual({
      ok: false, error: expect.objectContaining({ code: 'not_found' }),
    });
  });
});
