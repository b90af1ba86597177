#!/usr/bin/env node
// `npm start` — brings the whole service up.
//   DATABASE_URL unset → an embedded PostgreSQL (real server binaries from npm), data in .data/
//   NATS_URL unset     → the apps in this one process over an in-process transport
//   NATS_URL set       → one process per app (gateway, agents-, conversations-, notifications-service) over NATS
// Beside them, for the demo: both voice platforms simulated, and a webhook receiver the demo account's endpoint points at.
// Ctrl-C stops everything: the apps first, then the embedded PostgreSQL. Each step lives in scripts/start/.
import { startApps } from './start/apps.mjs';
import { banner, seedDemo } from './start/banner.mjs';
import { build, loadServiceKit } from './start/build.mjs';
import { demoTrafficSettings, endStaleCalls, startDemoTraffic } from './start/demo-traffic.mjs';
import { adminTokenFile, adminTokenOf, applyLocalDefaults, readStartConfig } from './start/config.mjs';
import { startEmbeddedPostgres } from './start/embedded-postgres.mjs';
import { die, say } from './start/output.mjs';
import { ensurePortFree, recordPorts } from './start/ports.mjs';
import { installSignalHandlers, launched } from './start/signals.mjs';
import { simulatorsWanted, startPlatformSimulators } from './start/simulators.mjs';
import { ensureDemoEndpoint, startWebhookReceiver, webhookReceiverWanted } from './start/webhook-receiver.mjs';

const startedAt = Date.now();
const env = process.env;
installSignalHandlers();

build();
const kit = await loadServiceKit();
const config = readStartConfig(kit, env);
const traffic = demoTrafficSettings(env);
await ensurePortFree(config.port, config.host, 'PORT');

let databaseUrl = config.databaseUrl;
if (!databaseUrl) {
  launched.embedded = await startEmbeddedPostgres(config, env).catch((err) => die(`the embedded PostgreSQL did not start: ${err?.message ?? err}`));
  databaseUrl = launched.embedded.url;
}
const adminToken = adminTokenOf(config);
applyLocalDefaults(config.dataDir, env);

if (simulatorsWanted(env)) {
  const simulators = await startPlatformSimulators(config.dataDir, env).catch((err) => die(`the platform simulators did not start: ${err?.message ?? err}`));
  launched.simulators = simulators;
  say(`platform simulators: platform_a ${simulators.urls.platformA}, platform_b ${simulators.urls.platformB}`);
}
if (webhookReceiverWanted(env)) {
  launched.webhookReceiver = await startWebhookReceiver(env).catch((err) => die(`the demo webhook receiver did not start: ${err?.message ?? err}`));
}
const { simulators, embedded, webhookReceiver } = launched;

const system = await startApps(kit, config, env, databaseUrl, adminToken);
recordPorts(config.dataDir, system, simulators, webhookReceiver);

const { demo, seedProblem } = await seedDemo(config, system, simulators, adminToken);
// The demo account's endpoint points at the receiver: made (or found) on every start, since the receiver may listen elsewhere.
const webhookProblem = demo && webhookReceiver ? await ensureDemoEndpoint({ baseUrl: system.url, apiKey: demo.apiKey, receiver: webhookReceiver }).then(() => undefined, (err) => err.message) : undefined;
// A killed earlier run may have left demo calls in progress: they end now, whether or not the traffic runs.
if (demo) {
  const ended = await endStaleCalls({ baseUrl: system.url, apiKey: demo.apiKey }).catch((err) => say(`could not end the demo calls left in progress: ${err.message}`));
  if (ended) say(`${ended} demo call(s) left in progress by an earlier run ended as failed (demo_interrupted)`);
}
// The demo's calls keep coming while it runs: placed on the simulators, delivered as their webhooks.
const trafficOn = Boolean(demo && simulators && traffic.enabled);
if (trafficOn) {
  launched.traffic = await startDemoTraffic({ simulators, baseUrl: system.url, apiKey: demo.apiKey, callsPerMinute: traffic.callsPerMinute, cap: traffic.cap, log: say }).catch((err) => {
    say(`demo traffic did not start: ${err.message}`);
    return undefined;
  });
}
process.stdout.write(
  banner({
    kit, config, startedAt, system, embedded, databaseUrl, simulators, webhookReceiver, tokenFile: adminTokenFile(config.dataDir), demo, seedProblem, webhookProblem,
    traffic: launched.traffic && traffic,
  }),
);
system.resumeInfoLogs?.();
