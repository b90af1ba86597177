import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { handleControlRequest } from './control-api.js';
import { FaultSwitches, type DownMode, type FaultState } from './faults.js';
import { bearerKey, closeServer, sleep, toSimulatorRequest, writeReply, type Reply, type SimulatorRequest } from './http-io.js';
import type { BegunCall, PlaceCallOptions, PlacedCall } from './calls/call-options.js';
import type { CallTimeline } from './calls/call-timeline.js';
import { RecordingLibrary, RECORDINGS_PREFIX } from './recordings/recording-library.js';

export const DEFAULT_API_KEY = 'sim-api-key';
export const DEFAULT_WEBHOOK_SECRET = 'sim-webhook-secret';
export const CONTROL_PREFIX = '/__sim';

export interface SimulatorOptions {
  /** Keys accepted in `Authorization: Bearer <key>`; `[DEFAULT_API_KEY]` when absent. */
  apiKeys?: readonly string[];
  /** Secret the webhooks of `placeCall` are signed with; `DEFAULT_WEBHOOK_SECRET` when absent. */
  webhookSecret?: string;
  /** Voices the platform knows; the platform's default voice is always among them. */
  voices?: readonly string[];
  /**
   * A JSON file holding the platform's agents and numbers: loaded at the first start, rewritten (to a temporary
   * file, then renamed over it, so a crash never leaves half a file) after every change. A real platform does not
   * forget its agents when we restart; absent (the default), the state lives in memory only.
   */
  stateFile?: string;
  /**
   * The calls' recordings (shared by the two simulators of `startSimulators`); by default the simulator's own,
   * kept in `recordingsDir` when given, else in memory.
   */
  recordings?: RecordingLibrary;
  recordingsDir?: string;
}

/** What a state file holds, whatever the platform. */
export interface PersistedState {
  platform: 'platform_a' | 'platform_b';
  agents: unknown[];
  phoneNumbers: unknown[];
  /** Numbers ever sold, so none is sold twice across restarts. */
  issuedNumbers: string[];
}

export interface RequestLogEntry {
  method: string;
  path: string;
  /** The query string without `?`, empty when there is none. */
  query: string;
  /** `null` when the simulator was down and dropped the connection without answering. */
  status: number | null;
  /** Unix ms when the request arrived. */
  timestamp: number;
  /** The parsed JSON body (the raw text when it was not JSON), absent for an empty body. */
  body?: unknown;
}

export interface SimulatorState {
  agents: unknown[];
  phoneNumbers: unknown[];
}

/**
 * One platform's HTTP server: the fault switches, bearer check and request log are common; the routes,
 * error bodies, state and webhooks are the platform's own (`PlatformASimulator`, `PlatformBSimulator`).
 */
export abstract class SimulatorServer {
  readonly faults = new FaultSwitches();
  abstract readonly platform: 'platform_a' | 'platform_b';
  protected webhookSecret: string;
  private apiKeys: Set<string>;
  private log: RequestLogEntry[] = [];
  private server: Server | null = null;
  private host = '127.0.0.1';
  private port = 0;
  private stopped = false;
  /** Closing and re-opening the listener for `refuse` happen one after the other, in the order asked. */
  private listenerTransition: Promise<void> = Promise.resolve();
  private upTimer: NodeJS.Timeout | null = null;
  private readonly stateFile: string | undefined;
  private stateLoaded = false;
  /** Recordings of the calls placed here, served at `<url>/recordings/<call id>.wav`. */
  readonly recordings: RecordingLibrary;
  private readonly ownsRecordings: boolean;

  protected constructor(options: SimulatorOptions) {
    this.stateFile = options.stateFile;
    this.recordings = options.recordings ?? new RecordingLibrary(options.recordingsDir);
    this.ownsRecordings = options.recordings === undefined;
    this.apiKeys = new Set(options.apiKeys ?? [DEFAULT_API_KEY]);
    this.webhookSecret = options.webhookSecret ?? DEFAULT_WEBHOOK_SECRET;
    this.faults.onDownChange((down) => {
      this.listenerTransition = this.listenerTransition.then(() => this.applyDownMode(down?.mode === 'refuse'));
    });
  }

  /** Listens on `host:port` (port 0 = an ephemeral one) and resolves with the base URL. */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) throw new Error(`${this.platform} simulator already started at ${this.url}`);
    this.host = host;
    this.stopped = false;
    this.loadStateFile();
    this.server = await this.listen(port);
    this.port = (this.server.address() as AddressInfo).port;
    return this.url;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.upTimer) clearTimeout(this.upTimer);
    await this.listenerTransition;
    const server = this.server;
    this.server = null;
    if (server) await closeServer(server);
    if (this.ownsRecordings) await this.recordings.close();
  }

  get url(): string {
    if (!this.port) throw new Error(`${this.platform} simulator is not started`);
    return `http://${this.host}:${this.port}`;
  }

  setApiKeys(keys: readonly string[]): void {
    this.apiKeys = new Set(keys);
  }

  getApiKeys(): string[] {
    return [...this.apiKeys];
  }

  setWebhookSecret(secret: string): void {
    this.webhookSecret = secret;
  }

  /** Every management request so far, oldest first (control API requests are not logged). */
  requests(): RequestLogEntry[] {
    return this.log.map((entry) => ({ ...entry }));
  }

  clearRequests(): void {
    this.log = [];
  }

  faultState(): FaultState {
    return this.faults.snapshot();
  }

  state(): SimulatorState {
    return { agents: this.agents(), phoneNumbers: this.phoneNumbers() };
  }

  /** Forgets every agent, number, logged request and fault; keys and webhook secret stay. */
  reset(): void {
    this.resetState();
    this.clearRequests();
    this.faults.clear();
    this.saveStateFile();
  }

  /** Makes the platform unreachable (see `DownMode`); resolves once a `refuse` has closed the port. */
  async down(mode: DownMode = 'reset'): Promise<void> {
    this.faults.down(mode);
    await this.listenerTransition;
  }

  /** Ends `down`; resolves once the port listens again. */
  async up(): Promise<void> {
    this.faults.up();
    await this.listenerTransition;
  }

  /** Ends `down` after `afterMs`: the control API's way back from `refuse`, which it cannot reach itself. */
  scheduleUp(afterMs: number): void {
    if (this.upTimer) clearTimeout(this.upTimer);
    this.upTimer = setTimeout(() => {
      this.upTimer = null;
      this.faults.up();
    }, afterMs);
    this.upTimer.unref();
  }

  abstract agents(): unknown[];
  abstract phoneNumbers(): unknown[];
  /** Places a call and starts delivering its webhooks (`live`: as the call unfolds). Throws PlaceCallError for bad options. */
  abstract beginCall(options: PlaceCallOptions): BegunCall;

  /** Places a call; resolves once every delivery is settled. */
  async placeCall(options: PlaceCallOptions): Promise<PlacedCall> {
    return this.beginCall(options).settled;
  }

  /** Where a recording of `id` is (or would be) served. */
  recordingUrl(id: string): string {
    return `${this.url}${RECORDINGS_PREFIX}${encodeURIComponent(id)}.wav`;
  }

  /** A connected, recorded call's script kept for its recording; its URL, or undefined when there is none. */
  protected recordCall(callId: string, timeline: CallTimeline, recorded: boolean): string | undefined {
    if (!recorded || !timeline.connected) return undefined;
    this.recordings.register(callId, { turns: timeline.turns, durationMs: Math.max(timeline.durationMs, timeline.turns.at(-1)?.endMs ?? 0) });
    return this.recordingUrl(callId);
  }
  protected abstract resetState(): void;
  /** The platform's state as plain JSON, and back (the subclasses' fields are set up only after the base constructor, hence not there). */
  protected abstract persistedState(): Omit<PersistedState, 'platform'>;
  protected abstract restoreState(state: PersistedState): void;
  protected abstract route(request: SimulatorRequest): Reply;
  protected abstract errorReply(status: number, message: string): Reply;

  private async handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    // Recordings are files on the platform's storage, as a signed URL would serve them: no key, no faults, not logged.
    const path = new URL(incoming.url ?? '/', 'http://simulator.local').pathname;
    if (path.startsWith(RECORDINGS_PREFIX)) {
      incoming.resume();
      await this.recordings.serve(incoming, response, path);
      return;
    }
    const request = await toSimulatorRequest(incoming);
    if (request.path === CONTROL_PREFIX || request.path.startsWith(`${CONTROL_PREFIX}/`)) {
      writeReply(response, await handleControlRequest(this, request, response));
      return;
    }
    const entry: RequestLogEntry = { method: request.method, path: request.path, query: request.query.toString(), status: null, timestamp: Date.now() };
    if (request.rawBody !== '') entry.body = typeof request.body === 'symbol' ? request.rawBody : request.body;
    this.log.push(entry);
    if (this.faults.downMode !== null) {
      incoming.socket.destroy();
      return;
    }
    const reply = this.answer(request);
    // Done first, answered later, as on a slow platform: a client that times out cannot know whether its create happened.
    if (this.faults.delayMs > 0) await sleep(this.faults.delayMs);
    entry.status = reply.status;
    writeReply(response, reply);
  }

  private loadStateFile(): void {
    if (this.stateLoaded || !this.stateFile) return;
    this.stateLoaded = true;
    if (!existsSync(this.stateFile)) return;
    const state = JSON.parse(readFileSync(this.stateFile, 'utf8')) as PersistedState;
    if (state.platform !== this.platform) throw new Error(`${this.stateFile} holds ${String(state.platform)}'s state, not ${this.platform}'s`);
    this.resetState();
    this.restoreState(state);
  }

  /** Written whole after every change: a simulator's state is small, and a crash leaves the old or the new file. */
  private saveStateFile(): void {
    if (!this.stateFile) return;
    const state: PersistedState = { platform: this.platform, ...this.persistedState() };
    const temporary = `${this.stateFile}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
    renameSync(temporary, this.stateFile);
  }

  /** Injected failures come first (a gateway in front of the platform), then the key, then the route. */
  private answer(request: SimulatorRequest): Reply {
    const failure = this.faults.takeInjectedFailure();
    if (failure?.kind === 'rate-limit') {
      const reply = this.errorReply(429, 'rate limit exceeded; retry later');
      return { ...reply, headers: { ...reply.headers, 'Retry-After': String(failure.retryAfterSeconds) } };
    }
    if (failure?.kind === 'server-error') return this.errorReply(failure.status, 'the platform had an internal error');
    const key = bearerKey(request.headers);
    if (this.faults.keysRevoked || key === undefined || !this.apiKeys.has(key)) {
      return this.errorReply(401, key === undefined ? 'missing Authorization: Bearer <api key>' : 'invalid or revoked API key');
    }
    try {
      const reply = this.route(request);
      if (request.method !== 'GET' && reply.status >= 200 && reply.status < 300) this.saveStateFile();
      return reply;
    } catch (error) {
      return this.errorReply(500, `simulator error: ${(error as Error).message}`);
    }
  }

  private listen(port: number): Promise<Server> {
    const server = createServer((incoming, response) => {
      this.handle(incoming, response).catch((error: unknown) => {
        if (!response.headersSent) writeReply(response, { status: 500, body: { error: String(error) } });
      });
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.host, () => {
        server.off('error', reject);
        resolve(server);
      });
    });
  }

  /** `refuse` closes the listening socket (clients get ECONNREFUSED); coming back re-listens on the same port. */
  private async applyDownMode(refuse: boolean): Promise<void> {
    if (this.stopped || !this.port) return;
    if (refuse && this.server) {
      const server = this.server;
      this.server = null;
      await closeServer(server);
    } else if (!refuse && !this.server) {
      this.server = await this.listen(this.port);
    }
  }
}
