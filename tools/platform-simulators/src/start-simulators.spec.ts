import { beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseCliArguments } from './cli-arguments.js';
import { startSimulators } from './start-simulators.js';
import { send, tcpConnect } from './spec-support.js';

const packageDirectory = fileURLToPath(new URL('..', import.meta.url));

describe('startSimulators', () => {
  it('starts both platforms with the given keys and answers their base URLs; stop closes both', async () => {
    const simulators = await startSimulators({ apiKeys: ['shared-key'] });

    expect(simulators.urls.platformA).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(simulators.urls.platformB).not.toBe(simulators.urls.platformA);
    expect((await send(simulators.urls.platformA, 'GET', '/v2/agents', { key: 'shared-key' })).body).toEqual({ items: [] });
    expect((await send(simulators.urls.platformB, 'GET', '/assistant', { key: 'shared-key' })).body).toEqual([]);
    expect((await send(simulators.urls.platformB, 'GET', '/assistant')).status).toBe(401);

    await simulators.stop();

    expect(await tcpConnect(simulators.urls.platformA)).toBe('ECONNREFUSED');
    expect(await tcpConnect(simulators.urls.platformB)).toBe('ECONNREFUSED');
  });

  it('fails when a port is taken, leaving nothing listening', async () => {
    const freePort = await listenOnce();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const takenPort = (blocker.address() as { port: number }).port;
    try {
      await expect(startSimulators({ portA: freePort, portB: takenPort })).rejects.toThrow('EADDRINUSE');
      expect(await tcpConnect(`http://127.0.0.1:${freePort}`)).toBe('ECONNREFUSED');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

/** A port that was free a moment ago. */
async function listenOnce(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('CLI arguments', () => {
  it('reads ports, host, repeated keys and the webhook secret', () => {
    expect(parseCliArguments(['--port-a', '4010', '--port-b', '0', '--api-key', 'one', '--api-key', 'two', '--webhook-secret', 's'])).toEqual({
      help: false,
      options: { portA: 4010, portB: 0, host: '127.0.0.1', apiKeys: ['one', 'two'], webhookSecret: 's' },
    });
  });

  it('defaults to ports 4010 and 4020', () => {
    expect(parseCliArguments([])).toMatchObject({ options: { portA: 4010, portB: 4020 } });
  });

  it('refuses a port that is not a number and an unknown option', () => {
    expect(() => parseCliArguments(['--port-a', 'http'])).toThrow('--port-a');
    expect(() => parseCliArguments(['--portA', '1'])).toThrow();
  });
});

describe('CLI', () => {
  beforeAll(() => {
    // The CLI is the built `dist/main.js`: build this package (incremental, quick when nothing changed).
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const build = spawnSync(process.execPath, [tsc, '-b', packageDirectory], { encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
  });

  it('prints both URLs, serves them with the given key, and exits cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['dist/main.js', '--port-a', '0', '--port-b', '0', '--api-key', 'cli-key'], { cwd: packageDirectory });
    try {
      const output = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (/platform_b http/.test(text)) resolve(text);
        });
        child.once('exit', (code) => reject(new Error(`CLI exited with ${code} before printing its URLs: ${text}`)));
      });
      const platformA = /platform_a (http:\/\/\S+)/.exec(output)?.[1] as string;
      const platformB = /platform_b (http:\/\/\S+)/.exec(output)?.[1] as string;

      expect((await send(platformA, 'GET', '/v2/agents', { key: 'cli-key' })).status).toBe(200);
      expect((await send(platformB, 'GET', '/assistant', { key: 'cli-key' })).status).toBe(200);
      expect((await send(platformB, 'GET', '/__sim', { key: null })).body.platform).toBe('platform_b');

      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('prints its usage and exits 2 on a bad option', () => {
    const run = spawnSync(process.execPath, ['dist/main.js', '--port-a', 'x'], { cwd: packageDirectory, encoding: 'utf8' });

    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--port-a must be a port number');
    expect(run.stderr).toContain('Usage:');
  });
});
