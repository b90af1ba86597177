import { describe, expect, it } from '@jest/globals';
import { pageAgreesWithTotal } from './list-conversations.store.js';

describe('pageAgreesWithTotal', () => {
  it.each([
    // length, total, offset, per_page, agrees
    [25, 100, 0, 25, true],
    [25, 26, 0, 25, true],
    [1, 26, 25, 25, true],
    [0, 0, 0, 25, true],
    [0, 10, 25, 25, true], // past the end
    [0, 1, 0, 25, false], // a total with no row: the row was committed between the two reads
    [1, 0, 0, 25, false],
    [24, 100, 0, 25, false],
    [25, 20, 0, 25, false],
    [2, 26, 25, 25, false],
  ])('%i rows under a total of %i at offset %i (per page %i): %s', (length, total, offset, perPage, agrees) => {
    expect(pageAgreesWithTotal(length, total, offset, perPage)).toBe(agrees);
  });
});
