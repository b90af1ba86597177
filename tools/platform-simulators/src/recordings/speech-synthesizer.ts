import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Speech } from './call-audio.js';

/** How long one utterance may take to synthesise before the request fails (a long sentence takes well under a second). */
const SYNTHESIS_TIMEOUT_MS = 30_000;

/**
 * eSpeak NG (WebAssembly, `@echogarden/espeak-ng-emscripten`, GPL-3.0: a tool of the demo, never part of the
 * services) in a worker thread: synthesis takes a fraction of real time, but the simulators share their process
 * with the apps under `npm start`, whose requests must not wait behind it. The worker's code is given as text
 * so that it runs the same from the sources (tests) and from the build.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const engine = import(workerData.moduleUrl).then(async ({ default: create }) => {
  const module = await create();
  return { module, speaker: new module.eSpeakNGWorker() };
});
parentPort.on('message', async ({ id, text, voice, rate }) => {
  try {
    const { module, speaker } = await engine;
    if (speaker.set_voice(voice) !== 0) speaker.set_voice('en-us');
    speaker.set_rate(rate);
    const chunks = [];
    const callback = module.addFunction((pointer, length) => {
      if (length > 0) chunks.push(module.HEAP16.slice(pointer >> 1, (pointer >> 1) + length));
      return 0;
    }, 'iiii');
    try {
      speaker.synth_(text, callback);
    } finally {
      module.removeFunction(callback);
    }
    const samples = new Int16Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
    let offset = 0;
    for (const chunk of chunks) {
      samples.set(chunk, offset);
      offset += chunk.length;
    }
    parentPort.postMessage({ id, samples, sampleRate: speaker.get_samplerate() }, [samples.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

export class SpeechUnavailableError extends Error {
  constructor(reason: string) {
    super(`speech synthesis is not available: ${reason}`);
    this.name = 'SpeechUnavailableError';
  }
}

interface Pending {
  resolve(speech: Speech): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class SpeechSynthesizer {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  /** Resolves with the utterance's samples at eSpeak's rate (22,050 Hz). */
  speak(text: string, voice: string, rateWpm: number): Promise<Speech> {
    const worker = this.started();
    const id = (this.nextId += 1);
    return new Promise<Speech>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`speech synthesis took longer than ${SYNTHESIS_TIMEOUT_MS} ms`));
      }, SYNTHESIS_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      worker.ref();
      worker.postMessage({ id, text, voice, rate: rateWpm });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error('speech synthesis stopped'));
    if (worker) await worker.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    let moduleUrl: string;
    try {
      moduleUrl = pathToFileURL(createRequire(import.meta.url).resolve('@echogarden/espeak-ng-emscripten')).href;
    } catch {
      throw new SpeechUnavailableError('the package @echogarden/espeak-ng-emscripten is not installed');
    }
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { moduleUrl } });
    worker.on('message', (message: { id: number; samples?: Int16Array; sampleRate?: number; error?: string }) => {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.error !== undefined) waiting.reject(new Error(`speech synthesis failed: ${message.error}`));
      else waiting.resolve({ samples: message.samples!, sampleRate: message.sampleRate! });
      // Idle, the worker must not keep a process (a test's, a script's) alive.
      if (this.pending.size === 0) worker.unref();
    });
    worker.on('error', (error) => {
      this.worker = undefined;
      this.failAll(error);
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
      this.pending.delete(id);
    }
  }
}
