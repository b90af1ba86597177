import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { idHash, RowIndex, withRoom } from './row-index.js';

describe('RowIndex: conversation id → row in typed arrays', () => {
  it('gives each distinct id its own row, in the order first seen, and the same row when asked again (as a Map would)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 400 }), fc.nat({ max: 600 }), (ids, capacity) => {
        const index = new RowIndex(capacity);
        const model = new Map<string, number>();
        for (const id of ids) {
          const { row, added } = index.rowFor(id);
          expect(added).toBe(!model.has(id));
          if (!model.has(id)) model.set(id, model.size);
          expect(row).toBe(model.get(id));
        }
        expect(index.size).toBe(model.size);
        for (const [id, row] of model) expect(index.find(id)).toBe(row);
        expect(index.find('never-put \u0000')).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('holds a million ids in 16–24 bytes each', () => {
    const index = new RowIndex();
    for (let i = 0; i < 1_000_000; i++) index.rowFor(`conv_${i}`);
    expect(index.size).toBe(1_000_000);
    expect(index.find('conv_999999')).toBe(999_999);
    expect(index.bytes / 1_000_000).toBeGreaterThanOrEqual(16);
    expect(index.bytes / 1_000_000).toBeLessThanOrEqual(24);
  });

  it('hashes ids that differ in one character apart, on both halves', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) {
      const [low, high] = idHash(`call-${String(i).padStart(8, '0')}`);
      seen.add(`${low}:${high}`);
      expect(Number.isInteger(low) && low >= 0 && low < 2 ** 32 && Number.isInteger(high) && high >= 0 && high < 2 ** 32).toBe(true);
    }
    expect(seen.size).toBe(100_000);
  });

  it('grows an array by a quarter (not double) past its room, keeping what it held', () => {
    const array = Int32Array.from({ length: 4_000 }, (_, i) => i);
    const wider = withRoom(array, 4_001);
    expect(wider.length).toBe(5_000);
    expect([...wider.subarray(0, 4_000)]).toEqual([...array]);
    expect(withRoom(array, 4_000)).toBe(array);
    expect(withRoom(new Uint8Array(0), 3).length).toBe(1_024);
  });
});
