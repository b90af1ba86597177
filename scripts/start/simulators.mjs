// Both voice platforms, simulated (tools/platform-simulators), so agents are created on "their platform" out of
// the box: the demo account's integrations point at them. PLATFORM_SIMULATORS=false leaves them out;
// PLATFORM_A_SIMULATOR_PORT / PLATFORM_B_SIMULATOR_PORT (4010 / 4020) pick the ports, any free one if taken.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { die, root, say } from './output.mjs';

export const simulatorsWanted = (env) => !/^(false|0|no)$/i.test(env.PLATFORM_SIMULATORS?.trim() ?? '');

function simulatorPort(env, variable, fallback) {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) die(`${variable} must be a port number (0–65535), got "${raw}"`);
  return n;
}

export async function startPlatformSimulators(dataDir, env) {
  const { startSimulators } = await import(pathToFileURL(join(root, 'tools', 'platform-simulators', 'dist', 'index.js')).href);
  const keyFile = join(dataDir, 'simulator-credentials.json');
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(keyFile)) {
    const credentials = { apiKey: `sim_${randomBytes(16).toString('hex')}`, webhookSecret: `whsec_${randomBytes(16).toString('hex')}` };
    writeFileSync(keyFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  }
  const credentials = JSON.parse(readFileSync(keyFile, 'utf8'));
  // A real platform does not forget its agents when we restart: the simulators keep theirs in DATA_DIR/simulators.
  const stateDir = join(dataDir, 'simulators');
  mkdirSync(stateDir, { recursive: true });
  const options = { host: '127.0.0.1', apiKeys: [credentials.apiKey], webhookSecret: credentials.webhookSecret, stateDir };
  const portA = simulatorPort(env, 'PLATFORM_A_SIMULATOR_PORT', 4010);
  const portB = simulatorPort(env, 'PLATFORM_B_SIMULATOR_PORT', 4020);
  const running = await startSimulators({ ...options, portA, portB }).catch((err) => {
    if (err.code !== 'EADDRINUSE') throw err;
    say(`simulator port ${portA} or ${portB} is taken: the simulators use free ports instead`);
    return startSimulators(options);
  });
  return { ...running, credentials };
}
