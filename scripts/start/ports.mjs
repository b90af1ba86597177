// Ports checked before anything starts, and where this start listens once it is up.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { die } from './output.mjs';

export const portInUse = (p, h, variable) =>
  `${variable === 'PORT' ? 'HTTP' : 'embedded PostgreSQL'} port ${p} on ${h} is already in use (set ${variable} to another port, or stop what is using it)`;

export async function ensurePortFree(p, h, variable) {
  await new Promise((ok, fail) => {
    const probe = createServer();
    probe.once('error', (err) => fail(new Error(err.code === 'EADDRINUSE' ? portInUse(p, h, variable) : `port ${p} on ${h} (${variable}): ${err.message}`)));
    probe.listen(p, h, () => probe.close(ok));
  }).catch((err) => die(err.message));
}

/**
 * Where this start listens, for `npm run simulate` and `npm run cli` (ports may differ from the defaults when
 * PORT=0 or a simulator's or the webhook receiver's port was taken); removed when it stops, so a stale file never points at nothing.
 */
export function recordPorts(dataDir, system, simulators, webhookReceiver) {
  const portsFile = join(dataDir, 'ports.json');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(
    portsFile,
    `${JSON.stringify(
      {
        pid: process.pid,
        api: system.url,
        ...(simulators ? { platform_a: simulators.urls.platformA, platform_b: simulators.urls.platformB } : {}),
        ...(webhookReceiver ? { webhook_receiver: webhookReceiver.url } : {}),
      },
      null,
      2,
    )}\n`,
  );
  process.on('exit', () => {
    try {
      if (JSON.parse(readFileSync(portsFile, 'utf8')).pid === process.pid) rmSync(portsFile, { force: true });
    } catch {
      // already gone, or rewritten by another start
    }
  });
}
