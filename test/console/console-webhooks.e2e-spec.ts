import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { pollUntil } from '../support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from '../support/system.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver.js';
import { checkEveryView, launchBrowser, signInLink, watchPolicyViolations, WIDTHS } from './browser.js';

/** The console's Webhooks page in a real browser, against the whole stack and a receiver on loopback that verifies every signature. */
describe('console: webhooks', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let agent: { id: string; name: string };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let blockedByPolicy: string[] = [];
  let receiver: WebhookReceiver;
  const received: Array<ReceivedWebhook & { event: { id: string; type: string } }> = [];
  let endpointId: string;
  /** While true the receiver answers 500, so deliveries fail. */
  let receiverDown = false;

  beforeAll(async () => {
    [system, browser] = await Promise.all([startSystem(), launchBrowser()]);
    account = await system.createAccount({ name: 'Harbor Dental (webhooks console test)' });
    const created = await account.api.post('/v1/agents', { name: 'Front Desk', voice_platform: 'platform_a' });
    expect(created.status).toBe(201);
    agent = { id: created.body.data.id, name: 'Front Desk' };
    receiver = await startWebhookReceiver({
      path: '/hooks',
      onRequest: (request) => {
        received.push({ ...request, event: JSON.parse(request.body) });
        return receiverDown ? { status: 500, body: 'receiver down' } : { status: 200, body: 'thanks from the receiver' };
      },
    });
    context = await browser.newContext({ viewport: WIDTHS.desktop });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: system.baseUrl });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    blockedByPolicy = watchPolicyViolations(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await system?.close();
  });

  const open = (path: string) => page.goto(signInLink(system.baseUrl, account.api_key, path));
  const testEvents = () => received.filter((r) => r.event.type === 'webhook.test');

  it('creates an endpoint: a refused URL is named at its field, then the secret is shown once with a copy button', async () => {
    await open('/app/webhooks');
    const nav = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks', exact: true });
    expect(await nav.getAttribute('aria-current')).toBe('page');
    await page.getByRole('status').filter({ hasText: 'No endpoints yet' }).waitFor();

    // The cloud metadata address is refused whatever the deployment allows: the API's words, at the URL field.
    await page.getByLabel('URL', { exact: true }).fill('http://169.254.169.254/latest');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const urlError = page.locator('#new-endpoint-url-error');
    await urlError.waitFor();
    expect(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect((await account.api.get('/v1/webhook-endpoints')).body.meta.total).toBe(0);

    // "Only these" with nothing ticked is named before anything is sent.
    await page.getByLabel('URL', { exact: true }).fill(receiver.url);
    await page.getByLabel('Description').fill('Loopback receiver');
    await page.getByRole('group', { name: 'Agents' }).getByLabel('Only these:').check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.locator('#new-endpoint-agent_ids-error').waitFor();
    await page.getByRole('group', { name: 'Agents' }).getByLabel(agent.name).check();
    // Event types default to all.
    expect(await page.getByRole('group', { name: 'Event types' }).getByLabel(/^All event types/).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create endpoint' }).click();

    const shown = page.getByTestId('new-endpoint-secret');
    await shown.waitFor();
    const secret = (await shown.innerText()).trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    receiver.useSecret(secret);

    const listed = (await account.api.get('/v1/webhook-endpoints')).body.data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ url: receiver.url, description: 'Loopback receiver', event_types: null, agent_ids: [agent.id], enabled: true, status: 'active' });
    endpointId = listed[0].id;
    const row = page.getByRole('row').filter({ hasText: receiver.url });
    await row.waitFor();
    expect(await row.innerText()).toContain(agent.name);
    expect(await row.innerText()).toContain('Active');
  });

  it('sends a test event, shows its outcome, the delivery and its attempt; resends it', async () => {
    await open('/app/webhooks');
    await page.getByRole('link', { name: receiver.url, exact: true }).click();
    await page.getByRole('heading', { name: receiver.url, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    const outcome = page.getByRole('status').filter({ hasText: 'Test event delivered' });
    await outcome.waitFor();
    expect(await outcome.innerText()).toMatch(/HTTP 200 in \d+ ms/);
    expect(await outcome.innerText()).toContain('thanks from the receiver');
    expect(testEvents()).toHaveLength(1);
    expect(testEvents()[0].verified).toBe(true);

    const deliveries = page.getByRole('region', { name: 'Deliveries', exact: true });
    const deliveryRow = deliveries.getByRole('row').filter({ hasText: 'webhook.test' });
    await deliveryRow.filter({ hasText: 'Succeeded' }).waitFor();
    await deliveryRow.getByRole('link', { name: /^Attempts of the webhook.test delivery/ }).click();
    await page.getByRole('heading', { name: 'Delivery of webhook.test', level: 1 }).waitFor();
    const attempts = page.getByRole('region', { name: 'Attempts', exact: true }).locator('tbody tr');
    await attempts.first().waitFor();
    expect(await attempts.count()).toBe(1);
    const attempt = await attempts.first().innerText();
    expect(attempt).toContain('HTTP 200');
    expect(attempt).toContain('thanks from the receiver');
    expect(attempt).toMatch(/\d+ ms/);
    expect(await page.getByText(testEvents()[0].event.id).count()).toBe(1);

    await page.getByRole('button', { name: /^Resend the webhook.test delivery/ }).click();
    await pollUntil(async () => testEvents().length, (count) => count === 2, 15_000);
    // A resend is the same event: the same webhook-id.
    expect(testEvents()[1].headers['webhook-id']).toBe(testEvents()[0].headers['webhook-id']);
    await attempts.nth(1).waitFor();
  });

  it('reveals the secret, rotates it (confirmed; the old one signs for 24 h more), then disables the endpoint', async () => {
    await open(`/app/webhooks/${endpointId}`);
    const secretBefore = (await account.api.get(`/v1/webhook-endpoints/${endpointId}/secret`)).body.data.secret;
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    expect((await page.getByTestId('endpoint-secret').innerText()).trim()).toBe(secretBefore);
    await page.getByRole('button', { name: 'Hide secret' }).click();
    expect(await page.getByTestId('endpoint-secret').count()).toBe(0);

    // By keyboard: the confirmation takes the focus, so Enter twice rotates.
    await page.getByRole('button', { name: 'Rotate secret' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Confirm rotate' }).waitFor();
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Confirm rotate');
    await page.keyboard.press('Enter');
    const notice = page.getByRole('status').filter({ hasText: 'New secret' });
    await notice.waitFor();
    expect(await notice.innerText()).toContain('24 h');
    const rotated = (await page.getByTestId('endpoint-secret').innerText()).trim();
    expect(rotated).not.toBe(secretBefore);
    expect((await account.api.get(`/v1/webhook-endpoints/${endpointId}/secret`)).body.data.secret).toBe(rotated);
    await page.getByText(`whsec_…${rotated.slice(-4)}`).waitFor();

    // The next delivery verifies with the new secret.
    receiver.useSecret(rotated);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('status').filter({ hasText: 'Test event delivered' }).waitFor();
    expect(testEvents().at(-1)!.verified).toBe(true);

    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByRole('button', { name: 'Enable endpoint' }).waitFor();
    await page.locator('.facts').getByText('Disabled', { exact: true }).waitFor();
    expect((await account.api.get(`/v1/webhook-endpoints/${endpointId}`)).body.data).toMatchObject({ enabled: false, status: 'disabled' });
  });

  it('edits an endpoint; a test event the receiver refuses ends failed, and is recovered since a time once it is back', async () => {
    await open(`/app/webhooks/${endpointId}`);
    const settings = page.getByRole('form', { name: 'Edit the endpoint' });
    await settings.getByLabel('Description').fill('Loopback receiver (edited)');
    await settings.getByRole('group', { name: 'Event types' }).getByLabel('Only these:').check();
    await settings.getByRole('group', { name: 'Event types' }).getByLabel('agent.created').check();
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await account.api.get(`/v1/webhook-endpoints/${endpointId}`)).body.data).toMatchObject({
      description: 'Loopback receiver (edited)',
      event_types: ['agent.created'],
      enabled: false,
    });

    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await page.getByRole('status').filter({ hasText: 'No failed deliveries.' }).waitFor();

    // A test event the receiver refuses: the outcome says so, and once its retries are spent the delivery is failed.
    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await page.getByRole('button', { name: 'Disable endpoint' }).waitFor();
    receiverDown = true;
    await page.getByRole('button', { name: 'Send test event' }).click();
    const refused = page.getByRole('status').filter({ hasText: 'Test event failed' });
    await refused.waitFor();
    expect(await refused.innerText()).toMatch(/HTTP 500 in \d+ ms/);
    expect(await refused.innerText()).toContain('receiver down');
    const deliveries = page.getByRole('region', { name: 'Deliveries', exact: true });
    await deliveries.getByRole('row').filter({ hasText: 'Failed' }).waitFor({ timeout: 20_000 });
    expect(await deliveries.locator('tbody tr').count()).toBe(1);

    // Recovered once the receiver is back: attempted again now, and it succeeds.
    receiverDown = false;
    await page.getByLabel('Failed since (UTC)').fill('');
    await page.getByRole('button', { name: 'Recover' }).click();
    await page.locator('#recover-since-error').filter({ hasText: 'Enter a date and time.' }).waitFor();
    await page.getByLabel('Failed since (UTC)').fill(new Date(Date.now() - 3_600_000).toISOString().slice(0, 16));
    await page.getByRole('button', { name: 'Recover' }).click();
    await page.getByRole('status').filter({ hasText: '1 failed delivery is being attempted again.' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'No failed deliveries.' }).waitFor({ timeout: 20_000 });
    await page.getByLabel('Status', { exact: true }).selectOption('succeeded');
    await deliveries.locator('tbody tr').first().waitFor();
    expect((await account.api.get(`/v1/webhook-endpoints/${endpointId}/deliveries?status=failed`)).body.meta.total).toBe(0);
  });

  it('has no serious or critical accessibility violation and fits 1280 px and 390 px (webhooks, endpoint, delivery)', async () => {
    const delivery = (await account.api.get(`/v1/webhook-endpoints/${endpointId}/deliveries?per_page=1`)).body.data[0];
    await checkEveryView(page, open, [
      ['webhooks', '/app/webhooks', 'main table tbody tr'],
      ['webhook-endpoint', `/app/webhooks/${endpointId}`, 'main table tbody tr'],
      ['webhook-delivery', `/app/webhooks/${endpointId}/deliveries/${delivery.id}`, 'main table tbody tr'],
    ]);
    expect(blockedByPolicy).toEqual([]);
  });
});
