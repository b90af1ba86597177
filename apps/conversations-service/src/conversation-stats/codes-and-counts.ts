/** The stats columns' small parts: strings as dense codes, and counts per small integer. Pure. */

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
  entries(): Array<[number, number]> {
    if (this.map) return [...this.map];
    const found: Array<[number, number]> = [];
    for (let key = 0; key < this.array!.length; key++) if (this.array![key] > 0) found.push([key, this.array![key]]);
    return found;
  }
}
