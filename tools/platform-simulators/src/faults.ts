/**
 * Fault switches of one simulator. Plain state: the server consults it on every management request
 * (the control API is never affected), so a test can make the platform misbehave in a known way.
 */

/** `reset`: connections are accepted, then destroyed without an answer. `refuse`: the port stops listening. */
export type DownMode = 'reset' | 'refuse';

export interface CountedFault {
  /** Requests still to be answered this way; `null` = every request until cleared. */
  remaining: number | null;
}

export interface FaultState {
  rateLimit: (CountedFault & { retryAfterSeconds: number }) | null;
  serverError: (CountedFault & { status: number }) | null;
  delayMs: number;
  keysRevoked: boolean;
  down: { mode: DownMode } | null;
  noNumbersAvailable: { everyArea: boolean; areaCodes: string[] };
}

export type FaultName = 'rate-limit' | 'server-error' | 'delay' | 'unauthorized' | 'down' | 'no-numbers';
export const FAULT_NAMES: readonly FaultName[] = ['rate-limit', 'server-error', 'delay', 'unauthorized', 'down', 'no-numbers'];

/** The failure a request must get instead of its real answer, if any. */
export type InjectedFailure = { kind: 'rate-limit'; retryAfterSeconds: number } | { kind: 'server-error'; status: number };

export class FaultSwitches {
  private state: FaultState = FaultSwitches.none();
  private readonly downListeners: Array<(down: FaultState['down']) => void> = [];

  private static none(): FaultState {
    return { rateLimit: null, serverError: null, delayMs: 0, keysRevoked: false, down: null, noNumbersAvailable: { everyArea: false, areaCodes: [] } };
  }

  /** The next `count` requests (every request when `count` is absent) answer 429 with `Retry-After`. */
  rateLimit(options: { count?: number; retryAfterSeconds?: number } = {}): void {
    this.state.rateLimit = { remaining: countOrForever(options.count), retryAfterSeconds: nonNegativeInteger(options.retryAfterSeconds ?? 1, 'retryAfterSeconds') };
  }

  /** The next `count` requests (every request when `count` is absent) answer `status` (500 by default). */
  serverError(options: { count?: number; status?: number } = {}): void {
    const status = options.status ?? 500;
    if (!Number.isInteger(status) || status < 500 || status > 599) throw new RangeError(`status must be a 5xx code, got ${status}`);
    this.state.serverError = { remaining: countOrForever(options.count), status };
  }

  /** Every request is answered `ms` later than it would be (a baseline for latency measurements, or a timeout). */
  delay(ms: number): void {
    this.state.delayMs = nonNegativeInteger(ms, 'delay');
  }

  /** Every key stops being valid: each request answers 401 until `restoreKeys` or a clear. */
  revokeKeys(): void {
    this.state.keysRevoked = true;
  }

  restoreKeys(): void {
    this.state.keysRevoked = false;
  }

  /** The platform is unreachable until `up()`; see `DownMode`. */
  down(mode: DownMode = 'reset'): void {
    if (mode !== 'reset' && mode !== 'refuse') throw new RangeError(`down mode must be reset or refuse, got ${String(mode)}`);
    this.state.down = { mode };
    this.notifyDown();
  }

  up(): void {
    this.state.down = null;
    this.notifyDown();
  }

  /** Buying a number in `areaCode` (in any area when absent) fails as the platform's "no number available". */
  noNumbersAvailable(areaCode?: string): void {
    if (areaCode === undefined) this.state.noNumbersAvailable.everyArea = true;
    else if (!this.state.noNumbersAvailable.areaCodes.includes(areaCode)) this.state.noNumbersAvailable.areaCodes.push(areaCode);
  }

  numbersAvailable(areaCode?: string): void {
    if (areaCode === undefined) this.state.noNumbersAvailable = { everyArea: false, areaCodes: [] };
    else this.state.noNumbersAvailable.areaCodes = this.state.noNumbersAvailable.areaCodes.filter((code) => code !== areaCode);
  }

  /** Clears one fault, or all of them when `name` is absent. */
  clear(name?: FaultName): void {
    const wasDown = this.state.down !== null;
    if (name === undefined) this.state = FaultSwitches.none();
    else if (name === 'rate-limit') this.state.rateLimit = null;
    else if (name === 'server-error') this.state.serverError = null;
    else if (name === 'delay') this.state.delayMs = 0;
    else if (name === 'unauthorized') this.state.keysRevoked = false;
    else if (name === 'down') this.state.down = null;
    else if (name === 'no-numbers') this.numbersAvailable();
    else throw new RangeError(`unknown fault ${String(name)}; known: ${FAULT_NAMES.join(', ')}`);
    if (wasDown && this.state.down === null) this.notifyDown();
  }

  snapshot(): FaultState {
    return structuredClone(this.state);
  }

  get delayMs(): number {
    return this.state.delayMs;
  }

  get keysRevoked(): boolean {
    return this.state.keysRevoked;
  }

  get downMode(): DownMode | null {
    return this.state.down?.mode ?? null;
  }

  isNumberUnavailable(areaCode: string | undefined): boolean {
    const { everyArea, areaCodes } = this.state.noNumbersAvailable;
    return everyArea || (areaCode !== undefined && areaCodes.includes(areaCode));
  }

  /** Consumes one counted failure: a pending 429 is served before a pending 5xx. */
  takeInjectedFailure(): InjectedFailure | null {
    const rateLimit = this.state.rateLimit;
    if (rateLimit) {
      this.consume('rateLimit');
      return { kind: 'rate-limit', retryAfterSeconds: rateLimit.retryAfterSeconds };
    }
    const serverError = this.state.serverError;
    if (serverError) {
      this.consume('serverError');
      return { kind: 'server-error', status: serverError.status };
    }
    return null;
  }

  onDownChange(listener: (down: FaultState['down']) => void): void {
    this.downListeners.push(listener);
  }

  private consume(key: 'rateLimit' | 'serverError'): void {
    const fault = this.state[key];
    if (!fault || fault.remaining === null) return;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.state[key] = null;
  }

  private notifyDown(): void {
    for (const listener of this.downListeners) listener(this.state.down);
  }
}

function countOrForever(count: number | undefined): number | null {
  if (count === undefined || count === null) return null;
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`count must be a positive integer, got ${count}`);
  return count;
}

function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  return value;
}
