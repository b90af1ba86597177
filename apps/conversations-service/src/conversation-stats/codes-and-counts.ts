/** The stats columns' small parts: strings as dense codes, counts per small integer, instants and costs as integers. Pure. */

/** Strings ↔ dense codes. */
export class Dictionary {
  readonly names: string[] = [];
  /** What the names take (two bytes a character and a map entry each, as V8 holds them at most), kept as they come. */
  bytes = 0;
  private readonly codes = new Map<string, number>();
  code(name: string): number {
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.names.length;
      this.names.push(name);
      this.codes.set(name, code);
      this.bytes += 2 * name.length + 64;
    }
    return code;
  }
  find(name: string): number | undefined {
    return this.codes.get(name);
  }
}

/** Counts per small non-negative integer: an array up to a few MB, a map beyond. */
export class Counter {
  private readonly array: Float64Array | undefined;
  private readonly map: Map<number, number> | undefined;
  constructor(size: number) {
    if (size <= 1 << 20) this.array = new Float64Array(size);
    else this.map = new Map();
  }
  add(key: number): void {
    if (this.array) this.array[key]++;
    else this.map!.set(key, (this.map!.get(key) ?? 0) + 1);
  }
  /** Adds `count` at once (a pre-summed cell's). */
  addMany(key: number, count: number): void {
    if (this.array) this.array[key] += count;
    else this.map!.set(key, (this.map!.get(key) ?? 0) + count);
  }
  /** Adds `counts[i]` at key `at + i` for every i (a pre-summed cell's array). */
  addArray(counts: ArrayLike<number>, at = 0): void {
    const array = this.array;
    if (array) {
      // Keys outside the array hold no counts (the array spans every key put).
      const to = Math.min(counts.length, array.length - at);
      for (let i = Math.max(0, -at); i < to; i++) array[at + i] += counts[i];
    } else {
      for (let i = 0; i < counts.length; i++) if (counts[i] !== 0) this.addMany(at + i, counts[i]);
    }
  }
  entries(): Array<[number, number]> {
    if (this.map) return [...this.map];
    const found: Array<[number, number]> = [];
    for (let key = 0; key < this.array!.length; key++) if (this.array![key] > 0) found.push([key, this.array![key]]);
    return found;
  }
}

/** A cost in millionths of a dollar when that is exact, else undefined (the account is then left to SQL). */
export function costMicros(decimal: string): number | undefined {
  const m = /^(\d+)(?:\.(\d{0,6})0*)?$/.exec(decimal);
  if (!m) return undefined;
  const micros = Number(m[1]) * 1_000_000 + Number((m[2] ?? '').padEnd(6, '0'));
  return Number.isSafeInteger(micros) && micros < 2 ** 40 ? micros : undefined;
}

/**
 * `YYYY-MM-DDTHH:MM:SS[.f…]Z` in microseconds, as PostgreSQL reads it into a timestamptz: the fraction
 * parsed as a double and rounded half to even (rint) to whole microseconds.
 */
export function instantMicros(instant: string): number {
  const seconds = Date.parse(`${instant.slice(0, 19)}Z`) / 1000;
  const fraction = /^\.(\d+)/.exec(instant.slice(19))?.[1];
  if (!fraction) return seconds * 1_000_000;
  const scaled = Number(`0.${fraction}`) * 1_000_000;
  const floor = Math.floor(scaled);
  const rest = scaled - floor;
  return seconds * 1_000_000 + (rest > 0.5 || (rest === 0.5 && floor % 2 === 1) ? floor + 1 : floor);
}
