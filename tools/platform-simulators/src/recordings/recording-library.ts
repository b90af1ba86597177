import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { byteRange, checkRecordingScript, renderCall, wavFile, type RecordingScript } from './call-audio.js';
import { SpeechSynthesizer, SpeechUnavailableError } from './speech-synthesizer.js';

/** Where recordings are served, under a simulator's base URL: `/recordings/<id>.wav`. */
export const RECORDINGS_PREFIX = '/recordings/';
/** Synthesised files kept on disk; the oldest go first (their scripts stay, so they can be made again). */
const CACHED_RECORDINGS = 120;
const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;

export interface RecordingTiming {
  /** Ms spent synthesising the last recording made, and its length in ms. */
  synthesisMs: number;
  audioMs: number;
}

/**
 * The recordings of simulated calls: a script per call (registered when the call is placed, or by the demo's
 * seed for its history), synthesised on the first request and cached. With a directory, scripts and audio live
 * there and survive restarts; without one, in memory.
 */
export class RecordingLibrary {
  private readonly scripts = new Map<string, RecordingScript>();
  private readonly audio = new Map<string, Buffer>();
  private readonly making = new Map<string, Promise<Buffer>>();
  private readonly synthesizer = new SpeechSynthesizer();
  /** The last synthesis, for the operations log and the measurements in the docs. */
  lastTiming: RecordingTiming | undefined;

  constructor(private readonly directory?: string) {}

  /**
   * Registers what the call said (`{ turns, durationMs, voices? }`; voices picked from the id when absent); its
   * audio is made on the first request. Throws a RangeError for an invalid script or id.
   */
  register(id: string, script: unknown): void {
    if (!ID_PATTERN.test(id)) throw new RangeError('a recording id is 1–200 letters, digits or _.:-');
    const checked = checkRecordingScript(id, script);
    if (typeof checked === 'string') throw new RangeError(checked);
    this.scripts.set(id, checked);
    if (this.directory) writeAtomically(join(this.directory, `${id}.json`), JSON.stringify(checked));
  }

  has(id: string): boolean {
    return this.script(id) !== undefined;
  }

  /** The WAV file of the call, synthesised once (concurrent requests share the work). */
  async wav(id: string): Promise<Buffer | undefined> {
    const cached = this.cachedAudio(id);
    if (cached) return cached;
    const script = this.script(id);
    if (!script) return undefined;
    const inFlight = this.making.get(id);
    if (inFlight) return inFlight;
    const making = this.make(id, script).finally(() => this.making.delete(id));
    this.making.set(id, making);
    return making;
  }

  /** Answers `GET|HEAD /recordings/<id>.wav`, honouring a single byte range (what an <audio> element asks to seek). */
  async serve(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const id = path.slice(RECORDINGS_PREFIX.length).replace(/\.wav$/, '');
    const plain = (status: number, text: string, headers: Record<string, string> = {}) =>
      response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(`${text}\n`);
    if (request.method !== 'GET' && request.method !== 'HEAD') return void plain(405, 'recordings are read with GET or HEAD', { allow: 'GET, HEAD' });
    let file: Buffer | undefined;
    try {
      file = ID_PATTERN.test(id) && path.endsWith('.wav') ? await this.wav(id) : undefined;
    } catch (error) {
      return void plain(error instanceof SpeechUnavailableError ? 503 : 500, (error as Error).message);
    }
    if (!file) return void plain(404, `no recording ${id}`);
    const headers = { 'content-type': 'audio/wav', 'accept-ranges': 'bytes', 'cache-control': 'public, max-age=86400', 'access-control-allow-origin': '*' };
    const range = byteRange(request.headers.range, file.length);
    if (range === 'unsatisfiable') return void plain(416, 'range not satisfiable', { 'content-range': `bytes */${file.length}` });
    const body = range ? file.subarray(range.start, range.end + 1) : file;
    response.writeHead(range ? 206 : 200, {
      ...headers,
      'content-length': String(body.length),
      ...(range ? { 'content-range': `bytes ${range.start}-${range.end}/${file.length}` } : {}),
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  }

  /**
   * Makes the recording ahead of its first request when the synthesiser is idle (a finished call is likely to be
   * played next); otherwise leaves it to that request, so a burst of calls does not queue work nobody asked for.
   */
  prepare(id: string): void {
    if (this.making.size > 0 || this.audioExists(id) || !this.script(id)) return;
    this.wav(id).catch(() => undefined);
  }

  /**
   * Loads the synthesiser ahead of the first request (a second or more on a busy machine, in its worker thread):
   * the first recording played then starts as quickly as the later ones.
   */
  warmUp(): void {
    this.synthesizer.speak('ready', 'en-us', 175).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.synthesizer.close();
  }

  private async make(id: string, script: RecordingScript): Promise<Buffer> {
    const started = performance.now();
    const file = wavFile(await renderCall(script, (text, voice, rate) => this.synthesizer.speak(text, voice, rate)));
    this.lastTiming = { synthesisMs: Math.round(performance.now() - started), audioMs: script.durationMs };
    if (this.directory) {
      writeAtomically(join(this.directory, `${id}.wav`), file);
      this.evictOldAudio();
    } else {
      this.audio.set(id, file);
    }
    return file;
  }

  private script(id: string): RecordingScript | undefined {
    const known = this.scripts.get(id);
    if (known || !this.directory) return known;
    const file = join(this.directory, `${id}.json`);
    if (!existsSync(file)) return undefined;
    const loaded = JSON.parse(readFileSync(file, 'utf8')) as RecordingScript;
    this.scripts.set(id, loaded);
    return loaded;
  }

  private audioExists(id: string): boolean {
    return this.directory ? existsSync(join(this.directory, `${id}.wav`)) : this.audio.has(id);
  }

  private cachedAudio(id: string): Buffer | undefined {
    if (!this.directory) return this.audio.get(id);
    const file = join(this.directory, `${id}.wav`);
    return existsSync(file) ? readFileSync(file) : undefined;
  }

  private evictOldAudio(): void {
    const directory = this.directory!;
    const files = readdirSync(directory).filter((name) => name.endsWith('.wav'));
    if (files.length <= CACHED_RECORDINGS) return;
    const byAge = files.map((name) => ({ name, at: statSync(join(directory, name)).mtimeMs })).sort((a, b) => a.at - b.at);
    for (const { name } of byAge.slice(0, files.length - CACHED_RECORDINGS)) rmSync(join(directory, name), { force: true });
  }
}

function writeAtomically(file: string, content: string | Buffer): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, file);
}
