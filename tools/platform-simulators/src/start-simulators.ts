import { join } from 'node:path';
import { PlatformASimulator } from './platform-a/platform-a-simulator.js';
import { PlatformBSimulator } from './platform-b/platform-b-simulator.js';
import { RecordingLibrary } from './recordings/recording-library.js';

export interface StartSimulatorsOptions {
  /** Ports to listen on; 0 (the default) picks a free one. */
  portA?: number;
  portB?: number;
  /** 127.0.0.1 by default. */
  host?: string;
  /** Keys both platforms accept as `Authorization: Bearer <key>`; `['sim-api-key']` by default. */
  apiKeys?: readonly string[];
  /** Secret both platforms sign webhooks with, unless the per-platform one is given; `sim-webhook-secret` by default. */
  webhookSecret?: string;
  webhookSecretA?: string;
  webhookSecretB?: string;
  voicesA?: readonly string[];
  voicesB?: readonly string[];
  /**
   * A directory for the platforms' state files (`platform-a.json`, `platform-b.json`, see SimulatorOptions.stateFile):
   * agents and numbers then survive a restart. Absent: in memory only. The calls' recordings (scripts and
   * synthesised WAV files) are kept in its `recordings` folder.
   */
  stateDir?: string;
}

export function simulatorStateFiles(stateDir: string): { platformA: string; platformB: string } {
  return { platformA: join(stateDir, 'platform-a.json'), platformB: join(stateDir, 'platform-b.json') };
}

export interface RunningSimulators {
  platformA: PlatformASimulator;
  platformB: PlatformBSimulator;
  urls: { platformA: string; platformB: string };
  stop(): Promise<void>;
}

/** Starts both platforms' simulators; `stop()` closes both. */
export async function startSimulators(options: StartSimulatorsOptions = {}): Promise<RunningSimulators> {
  const { host, apiKeys } = options;
  const files = options.stateDir === undefined ? undefined : simulatorStateFiles(options.stateDir);
  // One library, so one speech synthesiser, for both platforms.
  const recordings = new RecordingLibrary(options.stateDir === undefined ? undefined : join(options.stateDir, 'recordings'));
  const platformA = new PlatformASimulator({ apiKeys, webhookSecret: options.webhookSecretA ?? options.webhookSecret, voices: options.voicesA, stateFile: files?.platformA, recordings });
  const platformB = new PlatformBSimulator({ apiKeys, webhookSecret: options.webhookSecretB ?? options.webhookSecret, voices: options.voicesB, stateFile: files?.platformB, recordings });
  const stopBoth = async () => {
    await Promise.all([platformA.stop(), platformB.stop()]);
    await recordings.close();
  };
  try {
    const urls = { platformA: await platformA.start(options.portA ?? 0, host), platformB: await platformB.start(options.portB ?? 0, host) };
    return { platformA, platformB, urls, stop: stopBoth };
  } catch (error) {
    // One port taken must not leave the other simulator listening.
    await stopBoth();
    throw error;
  }
}
