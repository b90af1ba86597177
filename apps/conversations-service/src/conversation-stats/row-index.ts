/**
 * Conversation id → row of the stats columns, held in typed arrays: a 64-bit hash of each row's id and an
 * open-addressed table of rows, 16–24 bytes per row where a Map of id strings takes ~170 (the string, the entry).
 * Pure, no database.
 *
 * Two ids with one hash would share a row. That can only make the columns hold fewer rows than the account has,
 * and stats-memory.ts compares the two on every read and at every load: the account is then answered by SQL,
 * so the figures stay exact. (With 64 bits, one such pair among 10 million ids has a chance of about 3 in 10⁶.)
 */

/** Two 32-bit halves of one 64-bit string hash (cyrb53's mixing, both halves kept whole). */
export function idHash(id: string): [number, number] {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < id.length; i++) {
    const ch = id.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h1 >>> 0, h2 >>> 0];
}

/** A typed array with room for `size`, its contents kept: exactly `size` when asked to, else a quarter more. */
export function withRoom<T extends Int32Array | Uint32Array | Float64Array | Uint8Array | Int8Array>(array: T, size: number): T {
  if (size <= array.length) return array;
  // A quarter more, not double: a held account of millions grows by a few rows at a time after its load.
  const next = new (array.constructor as new (n: number) => T)(Math.max(size, array.length + (array.length >> 2), 1024));
  next.set(array);
  return next;
}

export class RowIndex {
  private low = new Uint32Array(0);
  private high = new Uint32Array(0);
  /** Row + 1 per slot, 0 for an empty one; a power of two in length, at most half full. */
  private slots = new Int32Array(0);
  private rows = 0;

  constructor(capacity = 0) {
    this.low = new Uint32Array(capacity);
    this.high = new Uint32Array(capacity);
    this.slots = new Int32Array(slotsFor(capacity));
  }

  get size(): number {
    return this.rows;
  }

  get bytes(): number {
    return this.low.byteLength + this.high.byteLength + this.slots.byteLength;
  }

  /** The row of this id, or undefined. */
  find(id: string): number | undefined {
    const [h1, h2] = idHash(id);
    return this.findHashed(h1, h2);
  }

  /** The row of this id: the one it has, or the next row (`size` before the call) when it is new. */
  rowFor(id: string): { row: number; added: boolean } {
    const [h1, h2] = idHash(id);
    const found = this.findHashed(h1, h2);
    if (found !== undefined) return { row: found, added: false };
    const row = this.rows++;
    this.low = withRoom(this.low, this.rows);
    this.high = withRoom(this.high, this.rows);
    this.low[row] = h1;
    this.high[row] = h2;
    if (this.rows * 2 > this.slots.length) this.rehash(slotsFor(this.rows));
    else this.place(row);
    return { row, added: true };
  }

  private findHashed(h1: number, h2: number): number | undefined {
    const mask = this.slots.length - 1;
    if (mask < 0) return undefined;
    for (let slot = h1 & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot];
      if (entry === 0) return undefined;
      if (this.low[entry - 1] === h1 && this.high[entry - 1] === h2) return entry - 1;
    }
  }

  private place(row: number): void {
    const mask = this.slots.length - 1;
    let slot = this.low[row] & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = row + 1;
  }

  private rehash(length: number): void {
    this.slots = new Int32Array(length);
    for (let row = 0; row < this.rows; row++) this.place(row);
  }
}

/** The table for `rows`: a power of two, at least twice as many slots. */
function slotsFor(rows: number): number {
  let length = 16;
  while (length < rows * 2) length *= 2;
  return length;
}
