/**
 * Per code of one column (an account's agents), the rows holding it, in row order: a figure of one agent is then
 * a pass over that agent's rows, not a check of every row of the account first. Built from the column when first
 * asked; rows added later are appended (they come last in row order); a row whose code changes (a conversation
 * moved to another agent, which no platform does today) marks the lists to be built again when next asked.
 * Pure: no database.
 */
import { withRoom } from './row-index.js';

export class RowsByCode {
  private lists: Int32Array[] = [];
  private counts: number[] = [];
  private built = false;

  /** The memory the lists take (each as allocated). */
  get bytes(): number {
    let bytes = 0;
    for (const list of this.lists) bytes += list.byteLength;
    return bytes;
  }

  /** After `row` was added with `code` (rows are added in increasing order). */
  added(row: number, code: number): void {
    if (!this.built) return;
    while (this.lists.length <= code) {
      this.lists.push(new Int32Array(0));
      this.counts.push(0);
    }
    const count = this.counts[code] + 1;
    this.lists[code] = withRoom(this.lists[code], count);
    this.lists[code][count - 1] = row;
    this.counts[code] = count;
  }

  /** After a held row's code changed: the lists are built again when next asked. */
  changed(): void {
    this.built = false;
    this.lists = [];
    this.counts = [];
  }

  /** The rows whose code is `code`, in row order (`values`: the column, `rows`: how many it holds). */
  rowsOf(code: number, values: Int32Array, rows: number): Int32Array {
    if (!this.built) this.build(values, rows);
    return code < this.lists.length ? this.lists[code].subarray(0, this.counts[code]) : new Int32Array(0);
  }

  private build(values: Int32Array, rows: number): void {
    let codes = 0;
    for (let row = 0; row < rows; row++) codes = Math.max(codes, values[row] + 1);
    const counts = new Array<number>(codes).fill(0);
    for (let row = 0; row < rows; row++) counts[values[row]]++;
    this.lists = counts.map((count) => new Int32Array(count));
    const filled = new Array<number>(codes).fill(0);
    for (let row = 0; row < rows; row++) {
      const code = values[row];
      this.lists[code][filled[code]++] = row;
    }
    this.counts = counts;
    this.built = true;
  }
}
