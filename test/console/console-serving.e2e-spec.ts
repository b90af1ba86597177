import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { startSystem, type RunningSystem } from '../support/system.js';

const root = resolve(fileURLToPath(import.meta.url), '../../..');
const dist = join(root, 'apps', 'console', 'dist');
/** The first load's budget: all the JavaScript index.html loads, gzip-compressed. */
const FIRST_LOAD_JS_BUDGET = 300 * 1024;

/** A request with the path exactly as written (fetch would normalise `..` away). */
function rawGet(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((ok, fail) => {
    const req = httpRequest({ host: hostname, port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    req.end();
  });
}

/** The gateway serves the built console at /app (npm test builds it first). */
describe('console served by the gateway', () => {
  let system: RunningSystem;
  let index: string;
  let scripts: string[];

  beforeAll(async () => {
    system = await startSystem();
    index = readFileSync(join(dist, 'index.html'), 'utf8');
    scripts = [...index.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]);
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  });

  it('serves index.html at /app and for every deep link, never cached, with a strict content security policy', async () => {
    for (const path of ['/app', '/app/', '/app/conversations', '/app/conversations/call_01HZX3?highlight=refund', '/app/agents/agt_1/']) {
      const res = await fetch(`${system.baseUrl}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await res.text()).toBe(index);
    }
  });

  it('serves hashed assets for a year, compressed when the client accepts gzip; HEAD too', async () => {
    expect(scripts.length).toBeGreaterThan(0);
    const path = scripts[0];
    expect(path).toMatch(/^\/app\/assets\/.+\.js$/);
    const res = await rawGet(system.baseUrl, path, { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-encoding']).toBe('gzip');
    const built = readFileSync(join(dist, path.slice('/app/'.length)));
    expect(gunzipSync(res.body).equals(built)).toBe(true);
    const plain = await rawGet(system.baseUrl, path);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(built)).toBe(true);
    const head = await fetch(`${system.baseUrl}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it("has an icon: index.html links the console's SVG icon, and the origin's /favicon.ico answers with it", async () => {
    const icon = readFileSync(join(dist, 'favicon.svg'));
    expect(index).toContain('<link rel="icon" type="image/svg+xml" href="/app/favicon.svg">');
    for (const path of ['/app/favicon.svg', '/favicon.ico']) {
      const res = await rawGet(system.baseUrl, path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.headers['content-type']).toBe('image/svg+xml');
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expect(res.body.equals(icon)).toBe(true);
    }
  });

  it('answers an unknown asset, and any path that would leave the build directory, with a 404 envelope', async () => {
    for (const path of ['/app/assets/nothing-here.js', '/app/favicon.ico', '/app/../package.json', '/app/assets/..%2F..%2F..%2Fpackage.json', '/app/%2e%2e/%2e%2e/package.json', '/app/assets/%00.js']) {
      const res = await rawGet(system.baseUrl, path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      const body = JSON.parse(res.body.toString('utf8'));
      expect(body.error.code).toBe('not_found');
      expect(res.body.toString('utf8')).not.toContain('"name": "voice-agent-ops"');
    }
  });

  it('leaves the API alone: its routes, its 404s and methods other than GET under /app', async () => {
    expect((await system.anonymous.get('/health')).status).toBe(200);
    expect((await system.anonymous.get('/v1/agents')).status).toBe(401);
    const unknown = await system.anonymous.get('/application');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('route_not_found');
    const post = await system.anonymous.post('/app/conversations', {});
    expect(post.status).toBe(404);
    expect(post.body.error.code).toBe('route_not_found');
  });

  it(`keeps the first load within ${FIRST_LOAD_JS_BUDGET / 1024} KB of gzip-compressed JavaScript`, () => {
    const files = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js'));
    // Everything index.html loads at once: its scripts and the modules they preload.
    const loaded = [...index.matchAll(/(?:src|href)="\/app\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
    expect(loaded.length).toBeGreaterThan(0);
    const gzipped = loaded.reduce((sum, file) => sum + gzipSync(readFileSync(join(dist, file)), { level: 9 }).length, 0);
    const all = files.reduce((sum, file) => sum + gzipSync(readFileSync(join(dist, 'assets', file)), { level: 9 }).length, 0);
    console.log(`console JavaScript: first load ${(gzipped / 1024).toFixed(1)} KB gzipped (${loaded.length} files); all chunks ${(all / 1024).toFixed(1)} KB`);
    expect(gzipped).toBeLessThanOrEqual(FIRST_LOAD_JS_BUDGET);
  });
});
