import { expect } from '@jest/globals';
import { readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { generateCalls } from '@voice/call-generator';
import type { RunningSystem, TestAccount } from '../support/system.js';
import { pollUntil } from '../support/poll.js';

/**
 * Browser tests of the operator console: Debian's Chromium driven by playwright-core (no browser download),
 * axe-core injected into the page, screenshots under test-output/console/ (gitignored).
 */
const root = resolve(fileURLToPath(import.meta.url), '../../..');
export const SCREENSHOTS = join(root, 'test-output', 'console');
export const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What the page's Content-Security-Policy blocked, as Chromium reports it on the console. */
export function watchPolicyViolations(page: Page): string[] {
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) blocked.push(message.text());
  });
  return blocked;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    // As root (CI) Chromium refuses its sandbox; /dev/shm is small in containers.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.x A/AA and best practices). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the debugging protocol, which the page's Content-Security-Policy (no inline scripts) does not govern.
  // (Page code is written as strings: this project's type checking knows Node, not the DOM.)
  if (!(await page.evaluate<boolean>(`'axe' in window`))) await page.evaluate(`${axeSource}\n;true`);
  const violations = await page.evaluate<AxeViolation[]>(`(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  })()`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Elements reaching past the right edge of the screen, but for what scrolls inside a table's own scroller. */
export async function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-scroll'))
    .map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (typeof e.className === 'string' && e.className ? '.' + e.className.split(' ').join('.') : ''))`);
}

/**
 * Tables whose columns do not fit their box (the table scrolls sideways inside it, so a column is cut off at
 * first sight), and the page itself scrolling sideways.
 */
export async function clippedTables(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[
    ...[...document.querySelectorAll('.table-scroll')].filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => 'table ' + (e.getAttribute('aria-label') || '?') + ': ' + e.scrollWidth + ' px in ' + e.clientWidth + ' px'),
    ...(document.documentElement.scrollWidth > window.innerWidth + 1 ? ['page: ' + document.documentElement.scrollWidth + ' px wide'] : []),
  ]`);
}

/** What the console keeps in the tab's sessionStorage. */
export function sessionValues(page: Page): Promise<string[]> {
  return page.evaluate<string[]>('Object.values(sessionStorage)');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
}

/** The zero-setup sign-in link `npm start` prints. */
/**
 * Every view at both widths: no serious or critical axe violation, nothing wider than the screen, no table
 * scrolling sideways (at 390 px rows are cards), a screenshot.
 * `open` navigates (signed in); `ready` is a selector that shows the view has its data.
 */
export async function checkEveryView(page: Page, open: (path: string) => Promise<unknown>, views: ReadonlyArray<readonly [view: string, path: string, ready: string]>): Promise<void> {
  for (const [name, size] of Object.entries(WIDTHS)) {
    await page.setViewportSize(size);
    for (const [view, path, ready] of views) {
      await open(path);
      await page.locator(ready).first().waitFor().catch((err: Error) => {
        throw new Error(`${view} at ${name} width: ${err.message}`);
      });
      expect({ view, width: name, violations: await seriousViolations(page) }).toEqual({ view, width: name, violations: [] });
      expect({ view, width: name, overflowing: await overflowingElements(page) }).toEqual({ view, width: name, overflowing: [] });
      expect({ view, width: name, clipped: await clippedTables(page) }).toEqual({ view, width: name, clipped: [] });
      await screenshot(page, view);
    }
  }
  await page.setViewportSize(WIDTHS.desktop);
}

export function signInLink(baseUrl: string, apiKey: string, path = '/app'): string {
  return `${baseUrl}${path}#api_key=${encodeURIComponent(apiKey)}`;
}

export interface ConsoleData {
  account: TestAccount;
  agents: Array<{ id: string; name: string }>;
  calls: number;
}

/**
 * Demo-like data, as `npm start` seeds it: two agents and `calls` generated calls spread over the last two
 * weeks (finished ones only: the tests place their own in-progress call), sent through POST /v1/call-events.
 */
export async function seedConsoleData(system: RunningSystem, calls = 120): Promise<ConsoleData> {
  const account = await system.createAccount({ name: 'Harbor Dental (console test)' });
  const agents: Array<{ id: string; name: string }> = [];
  for (const [name, voice_platform] of [['Front Desk', 'platform_a'], ['Billing Support', 'platform_b']] as const) {
    const res = await account.api.post('/v1/agents', { name, voice_platform, language: 'en', recording_enabled: true });
    if (res.status !== 201) throw new Error(`agent creation failed: ${res.status} ${res.text}`);
    agents.push({ id: res.body.data.id, name });
  }
  const now = Date.now();
  const finished = generateCalls({
    count: calls * 2,
    seed: 20261126,
    agentIds: agents.map((a) => a.id),
    from: new Date(now - 14 * 86_400_000).toISOString(),
    spanDays: 13.9,
    idPrefix: 'console',
  })
    .filter((c) => c.events.some((e) => ['call.ended', 'call.failed', 'call.abandoned'].includes(e.type)))
    .slice(0, calls);
  const events = finished.flatMap((c) => c.events);
  for (let i = 0; i < events.length; i += 500) {
    const res = await account.api.post('/v1/call-events', { events: events.slice(i, i + 500) });
    if (res.status !== 202) throw new Error(`call events refused: ${res.status} ${res.text}`);
  }
  const listed = await pollUntil(
    () => account.api.get('/v1/conversations?per_page=1'),
    (res) => res.status === 200 && res.body.meta.total >= finished.length,
    // Generous: other test files may be loading the same cores.
    60_000,
  );
  if (listed.body.meta?.total !== finished.length) throw new Error(`seeded ${finished.length} calls, listed: ${listed.status} ${listed.text.slice(0, 300)}`);
  return { account, agents, calls: finished.length };
}
