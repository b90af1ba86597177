import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { freePort, interrupt, launch, untilReady, type Launch } from '../support/launcher.js';
import { launchBrowser, screenshot, signInLink, WIDTHS } from './browser.js';

/**
 * The console as a newcomer sees it after `npm start`, demo traffic on: the overview's Live now and the list
 * pick up calls as they happen, an open call's transcript grows, and a finished call's recording plays while
 * its transcript follows.
 */
describe('console with the living demo (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voice-console-demo-'));
  // The embedded PostgreSQL (run as `postgres` when we are root) must enter it.
  chmodSync(dataDir, 0o755);
  let running: Launch | undefined;
  let url: string;
  let apiKey: string;
  let browser: Browser;
  let page: Page;

  const api = async (path: string) => {
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
    return (await res.json()) as { data: any; meta: any };
  };
  const open = (path: string) => page.goto(signInLink(url, apiKey, path));
  /** The conversation ids the list shows, in order. */
  const listedIds = () =>
    page.evaluate<string[]>(`[...document.querySelectorAll('main table tbody tr a[href^="/app/conversations/"]')].map((a) => decodeURIComponent(a.getAttribute('href').split('/').pop()))`);

  beforeAll(async () => {
    const pgPort = await freePort();
    // A call every few seconds, so the test sees several.
    running = launch({ DATA_DIR: dataDir, PORT: '0', EMBEDDED_PG_PORT: String(pgPort), PLATFORM_A_SIMULATOR_PORT: '0', PLATFORM_B_SIMULATOR_PORT: '0', DEMO_CALLS_PER_MINUTE: '20' });
    [{ url, apiKey }, browser] = await Promise.all([untilReady(running, 150_000), launchBrowser()]);
    page = await browser.newPage({ viewport: WIDTHS.desktop });
    page.setDefaultTimeout(15_000);
  }, 200_000);

  afterAll(async () => {
    await browser?.close();
    await interrupt(running);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('Live now on the overview shows the calls going on', async () => {
    await open('/app/');
    const live = page.getByRole('region', { name: 'Live now' });
    await live.getByRole('link').first().waitFor({ timeout: 90_000 });
    expect(await live.innerText()).toMatch(/[1-9]\d* calls? in progress/);
    await screenshot(page, 'demo-overview');
  }, 120_000);

  it('a new call is listed within 5 s of its first webhook; opened, its transcript grows; finished, its recording plays and the transcript follows', async () => {
    await open('/app/conversations');
    await page.getByRole('status').filter({ hasText: /^Live: / }).waitFor();
    const before = new Set(await listedIds());
    const watchedFrom = Date.now();
    // The first call that starts after the page is watching: when it appeared on screen. The rest of the test follows
    // the first new call that is connected and talking (in progress, a line already said): the demo also places calls
    // that fail before connecting or that the caller hangs up in silence, with no transcript or recording to show.
    let measured = false;
    const candidates: string[] = [];
    let call: { id: string } | undefined;
    for (const deadline = Date.now() + 120_000; !call && Date.now() < deadline; ) {
      const fresh = (await listedIds()).find((id) => !before.has(id));
      if (fresh) {
        const seenAt = Date.now();
        const deliveries = (await api(`/v1/webhook-deliveries?per_page=100&conversation_id=${encodeURIComponent(fresh)}`)).data as Array<{ received_at: string }>;
        const firstWebhookAt = Math.min(...deliveries.map((d) => Date.parse(d.received_at)));
        if (firstWebhookAt >= watchedFrom) {
          if (!measured) {
            console.log(`console demo: a new call on screen ${seenAt - firstWebhookAt} ms after its first webhook`);
            expect(seenAt - firstWebhookAt).toBeLessThanOrEqual(5_000);
            measured = true;
          }
          candidates.push(fresh);
        }
        before.add(fresh);
      }
      for (const id of [...candidates]) {
        const detail = (await api(`/v1/conversations/${encodeURIComponent(id)}`)).data as { status: string; has_transcript: boolean };
        if (detail.status !== 'in_progress') candidates.splice(candidates.indexOf(id), 1);
        else if (detail.has_transcript) call = { id };
        if (call) break;
      }
      await page.waitForTimeout(100);
    }
    expect(measured).toBe(true);
    expect(call).toBeDefined();

    // Opened while it goes on, its transcript grows on screen.
    await page.locator(`main table tbody tr a[href="/app/conversations/${encodeURIComponent(call!.id)}"]`).click();
    await page.getByRole('heading', { name: `Conversation ${call!.id}` }).waitFor();
    const lines = page.locator('.chat li');
    if ((await api(`/v1/conversations/${call!.id}`)).data.status === 'in_progress') {
      await page.getByRole('status').filter({ hasText: 'In progress' }).waitFor();
      const shown = await lines.count();
      // (Polled from here: the page's Content-Security-Policy refuses waitForFunction's evaluated string.)
      for (const deadline = Date.now() + 60_000; Date.now() < deadline && (await lines.count()) <= shown; ) await page.waitForTimeout(250);
      expect(await lines.count()).toBeGreaterThan(shown);
      await screenshot(page, 'demo-live-call');
    }

    // Finished and analysed, the page shows the recording; played from a line, that line is marked as spoken.
    await page.locator('audio').waitFor({ timeout: 120_000 });
    const count = await lines.count();
    expect(count).toBeGreaterThan(1);
    const second = page.locator('.chat li').nth(1);
    const from = (await second.locator('button.seek').innerText()).trim();
    await second.getByRole('button', { name: `Play from ${from}` }).click();
    await page.locator('.chat li[aria-current="true"]').first().waitFor({ timeout: 30_000 });
    const player = () => page.evaluate<{ duration: number; time: number }>(`(() => { const a = document.querySelector('audio'); return { duration: a.duration, time: a.currentTime }; })()`);
    const first = await player();
    expect(first.duration).toBeGreaterThan(0);
    await page.waitForTimeout(1_000);
    expect((await player()).time).toBeGreaterThan(first.time);
    await screenshot(page, 'demo-recording');
  }, 300_000);
});
