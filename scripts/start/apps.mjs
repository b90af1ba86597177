// The apps: in this process over the in-process transport (NATS_URL unset), or as one process each over NATS.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { die, root, say } from './output.mjs';
import { launched, shutdown } from './signals.mjs';

const appModule = (app) => pathToFileURL(join(root, 'apps', app, 'dist', 'app.js')).href;

async function startInProcess(kit, config, env, databaseUrl, adminToken) {
  const local = { rpc: new kit.InProcessBus(), streams: new kit.InProcessStreams() };
  const { startAgentsService, platformSyncSettingsFrom } = await import(appModule('agents-service'));
  const { startConversationsService, conversationsTuningFrom } = await import(appModule('conversations-service'));
  const { startNotificationsService, notificationsSettingsFrom } = await import(appModule('notifications-service'));
  const { startGateway, DEFAULT_RPC_TIMEOUT_MS } = await import(appModule('api-gateway'));
  const { namespace, port, host } = config;
  const running = [];
  const close = async () => {
    for (const app of running.splice(0).reverse()) await app.close().catch((err) => say(`while stopping: ${err.message}`));
  };
  try {
    const integrationsConfig = kit.readConfig(env);
    const platformHttp = { allowPrivate: integrationsConfig.flag('ALLOW_PRIVATE_PLATFORM_URLS', true) };
    const platformSync = platformSyncSettingsFrom(integrationsConfig);
    const notifications = notificationsSettingsFrom(integrationsConfig, true);
    const tuning = conversationsTuningFrom(integrationsConfig);
    // One process holds every app's heap: the same bound on its growth as each app's own process has.
    kit.limitHeapGrowth(kit.environment.heapGrowthPercent(integrationsConfig));
    integrationsConfig.done();
    const secretBox = kit.secretBoxFromEnv('INTEGRATIONS_KEY', env);
    const reads = { databaseReadUrl: config.databaseReadUrl, databaseReadMaxLagMs: config.databaseReadMaxLagMs };
    running.push(await startAgentsService({ databaseUrl, ...reads, local, namespace, secretBox, platformHttp, platformSync }));
    running.push(await startConversationsService({ databaseUrl, ...reads, local, namespace, tuning }));
    running.push(await startNotificationsService({ databaseUrl, local, namespace, secretBox, ...notifications }));
    const rpcTimeoutMs = config.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
    const gateway = await startGateway({
      port, host, databaseUrl, local, namespace, adminToken, rpcTimeoutMs, publicUrl: config.publicUrl, webhookRetentionDays: config.webhookRetentionDays,
      callEventsMaxAgeMs: config.callEventsMaxAgeMs, rateLimits: config.rateLimits, conversationStreams: config.conversationStreams,
    });
    running.push(gateway);
    return { url: gateway.url, close };
  } catch (err) {
    await close();
    throw err;
  }
}

function startProcesses(kit, config, env, databaseUrl, adminToken, onExit) {
  const { port, host } = config;
  const children = new Map();
  for (const app of ['agents-service', 'conversations-service', 'notifications-service', 'api-gateway']) {
    // The IPC channel is a lifeline: the apps stop when it closes, even if this launcher is killed with SIGKILL.
    const child = spawn(process.execPath, ['--enable-source-maps', join(root, 'apps', app, 'dist', 'main.js'), ...(config.quietStart ? [kit.QUIET_START_ARGUMENT] : [])], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: host, ADMIN_TOKEN: adminToken ?? '' },
    });
    children.set(app, child);
    child.on('exit', (code, signal) => {
      children.delete(app);
      onExit(app, signal ?? code);
    });
  }
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    async close() {
      const exits = [...children.values()].map((c) => new Promise((r) => c.once('exit', r)));
      for (const c of children.values()) c.kill('SIGTERM');
      await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 10_000))]);
      for (const c of children.values()) c.kill('SIGKILL');
    },
    kill() {
      for (const c of children.values()) c.kill('SIGTERM');
    },
    resumeInfoLogs() {
      for (const c of children.values()) if (c.connected) c.send({ type: kit.RESUME_INFO_LOGS }, () => undefined);
    },
  };
}

async function waitHealthy(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err.cause?.code ?? err.message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  process.stderr.write(`\n[start] cannot start: the service did not become healthy within ${timeoutMs / 1000} s (last answer: ${last})\n`);
  await shutdown(1); // the apps, then PostgreSQL, in order
}

/** The apps, started and healthy; a start failure is one line (or a bug's stack) and stops what was started. */
export async function startApps(kit, config, env, databaseUrl, adminToken) {
  const resumeInProcessInfoLogs = config.quietStart ? kit.quietInfoLogs() : () => undefined;
  let healthy = false;
  try {
    launched.system = config.localMode
      ? await (launched.starting = startInProcess(kit, config, env, databaseUrl, adminToken).then((running) => ({ ...running, resumeInfoLogs: resumeInProcessInfoLogs })))
      : startProcesses(kit, config, env, databaseUrl, adminToken, (app, why) => {
          if (launched.stopping) return;
          if (!healthy) {
            process.stderr.write(`\n[start] cannot start: ${app} exited (${why}); see its message above\n`);
            void shutdown(1);
            return;
          }
          say(`${app} exited (${why}); stopping the others`);
          void shutdown(1);
        });
  } catch (err) {
    if (launched.stopping) await new Promise(() => undefined); // Ctrl-C during the start: shutdown() finishes the job
    // A port taken since the check, an unreachable DATABASE_URL…: one line; anything else is a bug, with its stack.
    const explained = await kit.explainStartFailure(err, { ...env, DATABASE_URL: databaseUrl, NATS_URL: '', HOST: config.host });
    if (!(explained instanceof kit.StartupError)) say(err.stack ?? String(err));
    await launched.embedded?.stop().catch(() => undefined);
    die(explained.message ?? String(explained));
  }
  await waitHealthy(launched.system.url);
  healthy = true;
  return launched.system;
}
