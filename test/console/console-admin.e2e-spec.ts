import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { pollUntil } from '../support/poll.js';
import { startSystem, type RunningSystem } from '../support/system.js';
import { checkEveryView, launchBrowser, seedConsoleData, watchPolicyViolations, signInLink, WIDTHS, type ConsoleData } from './browser.js';

/** The console's agents, API keys, overview and integrations views in a real browser, against the whole stack. */
describe('console: agents, API keys, overview, integrations', () => {
  let system: RunningSystem;
  let data: ConsoleData;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let blockedByPolicy: string[] = [];
  let callId: string;

  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem(), launchBrowser()]);
    data = await seedConsoleData(system, 60);
    // One call placed on the platform_a simulator, so the delivery log has signed webhooks to show and replay.
    const synced = await pollUntil(
      () => data.account.api.get(`/v1/agents/${data.agents[0].id}`),
      (res) => typeof res.body.data?.platform_sync?.platform_agent_id === 'string',
      20_000,
    );
    const call = await system.platforms.simulators.platformA.placeCall({ agentId: synced.body.data.platform_sync.platform_agent_id, fromNumber: '+14155550142' });
    callId = call.callId;
    await pollUntil(() => data.account.api.get('/v1/webhook-deliveries?per_page=1'), (res) => res.body.meta?.total > 0, 20_000);
    context = await browser.newContext({ viewport: WIDTHS.desktop, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: system.baseUrl });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    blockedByPolicy = watchPolicyViolations(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await system?.close();
  });

  const open = (path: string, key = data.account.api_key) => page.goto(signInLink(system.baseUrl, key, path));

  it("creates an agent: every mistake named at once at its control, the server's refusal at its field, the API's defaults, privacy settings, hours and metadata; then pauses it", async () => {
    await open('/app/agents/new');
    // The form starts at the API's defaults.
    expect(await page.getByLabel('Record calls').isChecked()).toBe(true);
    expect(await page.getByLabel('Transcribe calls').isChecked()).toBe(true);
    expect(await page.getByLabel('Store call content').isChecked()).toBe(true);
    expect(await page.getByLabel('Redact personal data').isChecked()).toBe(false);
    await page.getByLabel('Name', { exact: true }).fill('Night Line');
    await page.getByLabel('Phone number', { exact: true }).fill('555-0142');
    await page.getByLabel('Tuesday', { exact: true }).check();
    await page.getByLabel('Tuesday opens').fill('18:00');
    await page.getByLabel('Tuesday closes').fill('09:00');
    await page.getByRole('button', { name: 'Add metadata' }).click();
    await page.getByLabel('Key 1').fill('bad key!');
    await page.getByLabel('Value 1').fill('reception');
    await page.getByRole('button', { name: 'Create agent' }).click();
    // Four mistakes, four messages, each at its control, in one go.
    await page.getByText('4 fields need a change').waitFor();
    expect(await page.locator('#agent-phone_number-error').innerText()).toBe('Phone number must be an E.164 phone number such as +14155550100.');
    expect(await page.getByLabel('Phone number', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Phone number', { exact: true }).getAttribute('aria-describedby')).toContain('agent-phone_number-error');
    expect(await page.locator('#hours-tuesday-error').innerText()).toBe('Closing must be later than opening.');
    expect(await page.locator('#agent-timezone-error').innerText()).toBe('Choose the time zone the hours are in.');
    expect(await page.locator('#meta-0-error').innerText()).toMatch(/^Keys are 1–40/);
    expect((await data.account.api.get('/v1/agents?search=Night%20Line')).body.meta.total).toBe(0);

    // A number another agent holds: only the server knows; its refusal is shown at the field.
    const taken = (await data.account.api.get(`/v1/agents/${data.agents[0].id}`)).body.data.phone_number as string;
    await page.getByLabel('Phone number', { exact: true }).fill(taken);
    await page.getByLabel('Tuesday opens').fill('09:00');
    await page.getByLabel('Tuesday closes').fill('17:30');
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    await page.getByLabel('Key 1').fill('department');
    await page.getByLabel('Redact personal data').check();
    await page.getByLabel('Email addresses').uncheck();
    await page.getByLabel('Store call content').uncheck();
    await page.getByLabel('Keep conversations for (days)').fill('90');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.locator('#agent-phone_number-error').filter({ hasText: /already used/ }).waitFor();
    expect(await page.locator('.field-error').count()).toBe(1);

    await page.getByLabel('Phone number', { exact: true }).fill('+14155550177');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('status').filter({ hasText: 'Agent Night Line created.' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Night Line' });
    expect(await row.innerText()).toContain('+14155550177');
    const created = (await data.account.api.get('/v1/agents?search=Night%20Line')).body.data[0];
    expect(created).toMatchObject({
      name: 'Night Line', phone_number: '+14155550177', status: 'active', recording_enabled: true, store_content: false,
      business_hours: { timezone: 'Europe/Paris', schedule: [{ day: 'tuesday', open: '09:00', close: '17:30' }] },
      metadata: { department: 'reception' },
      pii_redaction: { enabled: true },
      retention: { conversations_days: 90, recordings_days: null },
    });
    expect(created.pii_redaction.categories).not.toContain('email');
    expect(created.pii_redaction.categories).toContain('credit_card');

    await page.getByRole('button', { name: 'Pause Night Line' }).click();
    await page.getByRole('button', { name: 'Resume Night Line' }).waitFor();
    expect(await row.getByText('Paused', { exact: true }).count()).toBe(1);
    expect((await data.account.api.get(`/v1/agents/${created.id}`)).body.data.status).toBe('paused');
  });

  it('edits an agent, then deletes it after a confirmation', async () => {
    const agent = (await data.account.api.post('/v1/agents', { name: 'Temp Line', voice_platform: 'platform_b' })).body.data;
    await open(`/app/agents/${agent.id}`);
    await page.getByRole('heading', { name: 'Temp Line', level: 1 }).waitFor();
    await page.getByLabel('Welcome message').fill('Hello from the console.');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await data.account.api.get(`/v1/agents/${agent.id}`)).body.data.welcome_message).toBe('Hello from the console.');

    await page.getByRole('button', { name: 'Delete Temp Line' }).click();
    await page.getByRole('button', { name: 'Confirm delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Agent Temp Line deleted.' }).waitFor();
    expect((await data.account.api.get(`/v1/agents/${agent.id}`)).status).toBe(404);
  });

  it('creates a key with chosen scopes (shown once, copyable), and revokes it', async () => {
    await open('/app/api-keys');
    await page.getByLabel('Name', { exact: true }).fill('reporting');
    // conversations:read is ticked by default; nothing else.
    expect(await page.getByLabel('conversations:read').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-api-key');
    await shown.waitFor();
    const key = (await shown.innerText()).trim();
    expect(key).toMatch(/^vk_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(key);
    const limited = system.client(key);
    expect((await limited.get('/v1/conversations?per_page=1')).status).toBe(200);
    expect((await limited.get('/v1/agents')).status).toBe(403);

    // The limited key, signed in: a view needing another scope says which.
    const other = await browser.newPage({ viewport: WIDTHS.phone });
    other.setDefaultTimeout(10_000);
    await other.goto(signInLink(system.baseUrl, key, '/app/agents'));
    const alert = other.getByRole('alert').filter({ hasText: 'Permission needed' });
    await alert.waitFor();
    // Said once, in the console's words (the API's message would say the same again).
    expect((await alert.innerText()).split('agents:read').length - 1).toBe(1);
    // At 390 px the navigation folds behind a Menu button, and opens from it.
    const menu = other.getByRole('button', { name: 'Menu' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await other.getByRole('link', { name: 'Conversations', exact: true }).isVisible()).toBe(false);
    await menu.click();
    await other.getByRole('link', { name: 'Conversations', exact: true }).click();
    await other.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await other.close();

    await page.getByRole('button', { name: 'Revoke reporting' }).click();
    await page.getByRole('button', { name: 'Confirm revoke' }).click();
    await page.getByRole('row').filter({ hasText: 'reporting' }).getByText(/^Revoked/).waitFor();
    expect((await limited.get('/v1/conversations?per_page=1')).status).toBe(401);
  });

  it('overview: the figures of GET /v1/conversations/stats, per hour for a range of two days or less', async () => {
    await open('/app/');
    const stats = (await data.account.api.get(`/v1/conversations/stats?start_date=${encodeURIComponent(new Date(Date.now() - 13 * 86_400_000).toISOString().slice(0, 10))}T00:00:00.000Z&end_date=${new Date().toISOString().slice(0, 10)}T23:59:59.999Z`)).body.data;
    const calls = page.getByRole('region', { name: 'Calls', exact: true });
    await calls.getByText(String(stats.total), { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Calls per day by status' }).waitFor();
    expect(await page.locator('.chart canvas').count()).toBeGreaterThan(0);
    for (const region of ['Sentiment mix', 'Outcomes', 'Top topics', 'Average duration', '90th percentile duration', 'Total cost']) await page.getByRole('region', { name: region }).waitFor();
    // The bars stand on zero, and the legend gives the range's totals before anything is hovered.
    expect(await page.locator('.chart').getAttribute('data-y-min')).toBe('0');
    const legend = await page.locator('.chart .u-legend').innerText();
    expect(legend).not.toContain('--');
    expect(legend).toContain('whole range');
    expect(legend).toContain(String(stats.by_status.completed));
    // "Unknown" sentiment says what it means; topics in words, each once whatever its case or plural.
    if (stats.by_sentiment.unknown > 0) await page.getByRole('region', { name: 'Sentiment mix' }).getByText(/^Unknown: no sentiment was reported/).waitFor();
    const topics = (await page.getByRole('region', { name: 'Top topics' }).locator('li > span:first-child').allInnerTexts()).map((t) => t.trim());
    expect(topics.length).toBeGreaterThan(0);
    expect(new Set(topics.map((t) => t.toLowerCase().replace(/s$/, ''))).size).toBe(topics.length);
    expect(topics.every((t) => !t.includes('_') && t[0] === t[0].toUpperCase())).toBe(true);
    // Per agent: calls, average duration, sentiment, failure rate; each agent's calls as its own stats count them.
    const perAgent = page.getByRole('region', { name: 'Figures per agent' });
    for (const agent of data.agents) {
      const agentStats = (await data.account.api.get(`/v1/conversations/stats?start_date=${new Date(Date.now() - 13 * 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z&end_date=${new Date().toISOString().slice(0, 10)}T23:59:59.999Z&agent_id=${agent.id}`)).body.data;
      const row = perAgent.getByRole('row').filter({ hasText: agent.name });
      await row.getByRole('cell').nth(0).filter({ hasText: new RegExp(`^${agentStats.total}$`) }).waitFor();
      expect(await row.getByRole('cell').nth(4).innerText()).toBe(agentStats.total ? `${Math.round((agentStats.by_status.failed / agentStats.total) * 100)}%` : '—');
    }

    // One agent's figures.
    const range = `start_date=${new Date(Date.now() - 13 * 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z&end_date=${new Date().toISOString().slice(0, 10)}T23:59:59.999Z`;
    const agent = data.agents[1];
    const agentStats = (await data.account.api.get(`/v1/conversations/stats?${range}&agent_id=${agent.id}`)).body.data;
    expect(agentStats.total).not.toBe(stats.total);
    await page.getByLabel('Agent', { exact: true }).selectOption({ label: agent.name });
    await calls.getByText(String(agentStats.total), { exact: true }).waitFor();
    expect(new URL(page.url()).searchParams.get('agent_id')).toBe(agent.id);

    const today = new Date().toISOString().slice(0, 10);
    await page.getByLabel('From').fill(today);
    await page.getByRole('heading', { name: 'Calls per hour by status' }).waitFor();
    expect(new URL(page.url()).searchParams.get('start_date')).toBe(today);
  });

  it('overview: "Live now" lists a call the moment it starts and drops it when it ends, from the conversation stream', async () => {
    await open('/app/');
    const live = page.getByRole('region', { name: 'Live now' });
    await live.getByText(/calls? in progress$/).waitFor();
    const id = `console-live-now-${Date.now()}`;
    const event = (n: number, type: string, extra: object) => ({ id: `${id}-${n}`, type, conversation_id: id, agent_id: data.agents[0].id, occurred_at: new Date().toISOString(), ...extra });
    expect((await data.account.api.post('/v1/call-events', { events: [event(0, 'call.started', { data: { caller_number: '+14155550123', start_time: new Date().toISOString() } })] })).status).toBe(202);
    const started = Date.now();
    await live.getByRole('link', { name: '+14155550123' }).waitFor({ timeout: 15_000 });
    console.log(`overview live now: a started call listed ${Date.now() - started} ms after its 202`);
    expect((await data.account.api.post('/v1/call-events', { events: [event(1, 'call.ended', { data: { end_time: new Date().toISOString(), duration: 3 } })] })).status).toBe(202);
    await live.getByRole('link', { name: '+14155550123' }).waitFor({ state: 'detached', timeout: 15_000 });
  });

  it('integrations: status and webhook URL (copyable) per platform, credentials refused at the field then replaced, the delivery log with replay', async () => {
    await open('/app/integrations');
    const integrations = (await data.account.api.get('/v1/integrations')).body.data as Array<{ platform: string; webhook_url: string; status: string }>;
    for (const integration of integrations) {
      const card = page.getByRole('region', { name: integration.platform === 'platform_a' ? 'Platform A' : 'Platform B' });
      await card.getByText(integration.webhook_url).waitFor();
    }
    const first = integrations.find((i) => i.platform === 'platform_a')!;
    await page.getByRole('button', { name: 'Copy the Platform A webhook URL' }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(first.webhook_url);

    // Credentials the platform refuses: said at the field, and the integration keeps the ones it had.
    const cardB = page.getByRole('region', { name: 'Platform B' });
    await cardB.getByLabel('Platform B API key').fill('sim_wrong_key');
    await cardB.getByLabel('Platform B webhook secret').fill('whsec_new_secret_000');
    await cardB.getByRole('button', { name: 'Replace credentials' }).click();
    await page.locator('#platform_b-api_key-error').filter({ hasText: 'refused the API key' }).waitFor();
    expect(await cardB.getByLabel('Platform B API key').getAttribute('aria-invalid')).toBe('true');
    await cardB.getByLabel('Platform B API key').fill(system.platforms.apiKey);
    await cardB.getByLabel('Platform B webhook secret').fill(system.platforms.webhookSecret);
    await cardB.getByRole('button', { name: 'Replace credentials' }).click();
    await cardB.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await data.account.api.get('/v1/integrations/platform_b')).body.data.status).toBe('verified');

    const row = page.getByRole('row').filter({ hasText: callId }).first();
    await row.waitFor();
    await row.getByRole('button', { name: /^Replay delivery/ }).click();
    await page.getByRole('status').filter({ hasText: /^ ?Replayed: / }).first().waitFor();
    const replays = (await data.account.api.get('/v1/webhook-deliveries?per_page=100')).body.data.filter((d: { replay_of: string | null }) => d.replay_of !== null);
    expect(replays.length).toBe(1);
  });

  it("privacy: a caller's access export (progress, download) and erasure (after a confirmation), both in the audit log, filtered", async () => {
    // Callers of the seeded calls only: the call placed on the simulator (+14155550142) keeps the delivery log's rows for the other tests.
    const withCaller = (await data.account.api.get('/v1/conversations?per_page=100')).body.data.filter((c: { caller_number: string | null }) => c.caller_number?.startsWith('+') && c.caller_number !== '+14155550142');
    const [first, second] = [...new Set(withCaller.map((c: { caller_number: string }) => c.caller_number))] as string[];
    const countOf = async (caller: string) => (await data.account.api.get(`/v1/conversations?caller=${encodeURIComponent(caller)}&per_page=1`)).body.meta.total as number;
    const firstCount = await countOf(first);
    expect(firstCount).toBeGreaterThan(0);
    await open('/app/privacy');
    await page.getByRole('heading', { name: 'Privacy', level: 1 }).waitFor();

    // A number that is not E.164 is named at its control before anything is sent.
    await page.getByLabel('Caller number').fill('555-0100');
    await page.getByRole('button', { name: 'Request access' }).click();
    await page.locator('#request-caller-error').filter({ hasText: 'E.164' }).waitFor();
    expect((await data.account.api.get('/v1/data-requests')).body.meta.total).toBe(0);

    await page.getByLabel('Caller number').fill(first);
    await page.getByRole('button', { name: 'Request access' }).click();
    await page.getByRole('status').filter({ hasText: /^Access request for .* created/ }).waitFor();
    const accessRow = page.getByRole('row').filter({ hasText: 'Access' }).first();
    await accessRow.getByText(`${firstCount} of ${firstCount} conversation${firstCount === 1 ? '' : 's'} exported`).waitFor({ timeout: 30_000 });
    await accessRow.getByText('Completed', { exact: true }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), accessRow.getByRole('button', { name: /^Download the export of / }).click()]);
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(JSON.stringify(exported)).toContain(withCaller.find((c: { caller_number: string }) => c.caller_number === first).id);

    // Erasure asks first, naming the number; then it runs to the end and the caller's calls are gone.
    expect(await countOf(second)).toBeGreaterThan(0);
    await page.getByLabel(/^Erasure/).check();
    await page.getByLabel('Caller number').fill(second);
    await page.getByRole('button', { name: 'Erase…' }).click();
    const confirm = page.getByRole('group', { name: 'Confirm the erasure' });
    expect(await confirm.innerText()).toContain(second);
    await confirm.getByRole('button', { name: 'Confirm erasure' }).click();
    const erasureRow = page.getByRole('row').filter({ hasText: 'Erasure' }).first();
    await erasureRow.getByText('Completed', { exact: true }).waitFor({ timeout: 30_000 });
    expect(await countOf(second)).toBe(0);

    // The audit log has both requests, by this key; its filters live in the address.
    await pollUntil(() => data.account.api.get('/v1/audit-events?action=data_request.created'), (res) => res.body.meta?.total >= 2, 20_000);
    await page.getByLabel('Action').selectOption({ label: 'Data request created' });
    await page.waitForURL(/action=data_request.created/);
    const audit = page.getByRole('region', { name: 'Audit log' });
    await audit.getByRole('row').filter({ hasText: 'Data request created' }).nth(1).waitFor();
    expect(await audit.getByRole('row').filter({ hasText: 'Data request completed' }).count()).toBe(0);
    expect(await audit.getByRole('row').filter({ hasText: 'Data request created' }).first().innerText()).toMatch(/Key /);
  }, 120_000);

  it('has no serious or critical accessibility violation and fits 1280 px and 390 px (overview, agents, new and existing agent, API keys, integrations, privacy)', async () => {
    await checkEveryView(page, open, [
      ['overview', '/app/', '.chart canvas'],
      ['agents', '/app/agents', 'main table tbody tr'],
      ['agent-form', '/app/agents/new', 'form.agent-form'],
      ['agent-edit', `/app/agents/${data.agents[0].id}`, 'form.agent-form'],
      ['api-keys', '/app/api-keys', 'main table tbody tr'],
      ['integrations', '/app/integrations', 'main table tbody tr'],
      ['privacy', '/app/privacy', 'main table tbody tr'],
    ]);
    // Every view rendered under the gateway's Content-Security-Policy without the browser blocking anything.
    expect(blockedByPolicy).toEqual([]);
  }, 120_000);
});
