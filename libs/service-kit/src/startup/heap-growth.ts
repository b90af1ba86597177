import v8 from 'node:v8';

/**
 * How far V8's old space may grow past what its last full collection kept, in percent, before it collects again.
 *
 * Under sustained load a server promotes a steady trickle of short-lived objects (requests in flight across two
 * young-generation collections) into the old space. Left to its own heuristic, V8 lets the old space grow to up to
 * four times the live heap before a full collection: a gateway whose live heap stays near 56 MiB passes 300 MiB
 * resident within a minute of list load, nearly all of it garbage. At 50 % the old space is collected at 1.5× the
 * live heap; a full collection of a heap this size takes tens of milliseconds, mostly on V8's helper threads.
 */
export const DEFAULT_HEAP_GROWTH_PERCENT = 50;

/** Applies HEAP_GROWTH_PERCENT to this process; 0 leaves the growth to V8's own heuristic. */
export function limitHeapGrowth(percent: number = DEFAULT_HEAP_GROWTH_PERCENT): void {
  // V8 reads this flag at every full collection, so setting it after start takes effect from the next one.
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
