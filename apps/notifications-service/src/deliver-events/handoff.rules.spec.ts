import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { handoffShares, nextToAttempt, roomToHold } from './handoff.rules.js';

const map = (entries: Record<string, number>) => new Map(Object.entries(entries));
const none = map({});
/** Queues of the given lengths, in the order given. */
const queues = (entries: Record<string, number>) => new Map(Object.entries(entries).map(([id, n]) => [id, Array.from({ length: n })]));

describe('handoffShares: the new deliveries a worker takes as they are recorded', () => {
  it('takes every delivery while the endpoint and the worker have room', () => {
    expect(handoffShares(map({ a: 3, b: 2 }), none, none, none, { freeToHold: 10, perEndpoint: 4 })).toEqual(map({ a: 3, b: 2 }));
  });

  it('never holds more of an endpoint than its room: what the worker holds and has promised to open recordings count', () => {
    expect(handoffShares(map({ a: 10 }), map({ a: 2 }), map({ a: 2 }), map({ a: 1 }), { freeToHold: 100, perEndpoint: 4 })).toEqual(map({ a: 1 }));
    expect(handoffShares(map({ a: 10, b: 1 }), map({ a: 5 }), map({ a: 5 }), none, { freeToHold: 100, perEndpoint: 4 })).toEqual(map({ b: 1 }));
  });

  it('takes none of an endpoint another replica holds leases of: only a claim counts those against the cap', () => {
    expect(handoffShares(map({ a: 3, b: 3 }), map({ a: 3, b: 1 }), map({ a: 3 }), none, { freeToHold: 100, perEndpoint: 16 })).toEqual(map({ a: 3 }));
  });

  it('never takes more than the worker may still hold, first come first served', () => {
    expect(handoffShares(map({ a: 3, b: 3 }), none, none, none, { freeToHold: 4, perEndpoint: 16 })).toEqual(map({ a: 3, b: 1 }));
    expect(handoffShares(map({ a: 3 }), none, none, none, { freeToHold: 0, perEndpoint: 16 })).toEqual(none);
  });

  it('for any demand: within what the worker may hold, within each endpoint’s room, never more than wanted, never beside another replica', () => {
    const counts = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.nat(30));
    fc.assert(fc.property(counts, counts, counts, counts, fc.integer({ min: -5, max: 60 }), fc.integer({ min: 1, max: 20 }), (wanted, leased, held, promised, freeToHold, perEndpoint) => {
      const shares = handoffShares(map(wanted), map(leased), map(held), map(promised), { freeToHold, perEndpoint });
      const total = [...shares.values()].reduce((sum, n) => sum + n, 0);
      expect(total).toBeLessThanOrEqual(Math.max(0, freeToHold));
      for (const [endpointId, share] of shares) {
        expect(share).toBeGreaterThan(0);
        expect(share).toBeLessThanOrEqual(wanted[endpointId]);
        expect(share + (held[endpointId] ?? 0) + (promised[endpointId] ?? 0)).toBeLessThanOrEqual(perEndpoint);
        expect(leased[endpointId] ?? 0).toBeLessThanOrEqual(held[endpointId] ?? 0);
      }
    }), { numRuns: 1000 });
  });
});

describe('roomToHold: how many more deliveries the worker may take', () => {
  const empty = { held: 0, promised: 0, heldChars: 0, promisedChars: 0 };

  it('the count it may hold, less what it holds and has promised', () => {
    expect(roomToHold({ ...empty, held: 100, promised: 28 }, { most: 256, bodyChars: 1e9 }, 1_000)).toBe(128);
    expect(roomToHold({ ...empty, held: 250, promised: 10 }, { most: 256, bodyChars: 1e9 }, 1_000)).toBe(0);
  });

  it('fewer when the bodies are long: a recording of transcripts is held within the body budget', () => {
    // 1 MiB of budget, 256 KiB bodies: 4 of them, 3 once one 256 KiB body is held.
    expect(roomToHold(empty, { most: 4096, bodyChars: 1 << 20 }, 256 << 10)).toBe(4);
    expect(roomToHold({ ...empty, held: 1, heldChars: 256 << 10 }, { most: 4096, bodyChars: 1 << 20 }, 256 << 10)).toBe(3);
    expect(roomToHold({ ...empty, promised: 4, promisedChars: 1 << 20 }, { most: 4096, bodyChars: 1 << 20 }, 10)).toBe(0);
  });

  it('for any state: never negative, never past the count or the body budget once taken', () => {
    fc.assert(fc.property(
      fc.nat(300), fc.nat(300), fc.nat(1 << 22), fc.nat(1 << 22), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 1 << 22 }), fc.nat(1 << 19),
      (held, promised, heldChars, promisedChars, most, bodyChars, longestBody) => {
        const room = roomToHold({ held, promised, heldChars, promisedChars }, { most, bodyChars }, longestBody);
        expect(room).toBeGreaterThanOrEqual(0);
        if (room > 0) {
          expect(held + promised + room).toBeLessThanOrEqual(most);
          expect(heldChars + promisedChars + room * Math.max(1, longestBody)).toBeLessThanOrEqual(bodyChars);
        }
      },
    ), { numRuns: 1000 });
  });
});

describe('nextToAttempt: which endpoint’s queued delivery starts in a free slot', () => {
  it('the first in the order with something queued and room under its cap', () => {
    expect(nextToAttempt(queues({ a: 1, b: 1, c: 0 }), none, 2)).toBe('a');
    expect(nextToAttempt(queues({ c: 0, b: 1, a: 1 }), none, 2)).toBe('b');
    expect(nextToAttempt(queues({ a: 1, b: 1 }), map({ a: 2 }), 2)).toBe('b');
    expect(nextToAttempt(queues({ a: 1 }), map({ a: 2 }), 2)).toBeUndefined();
    expect(nextToAttempt(new Map(), none, 2)).toBeUndefined();
  });

  it('for any state: an endpoint with something queued and room under its cap, and none when no endpoint has both', () => {
    const ids = ['a', 'b', 'c', 'd'];
    const counts = fc.dictionary(fc.constantFrom(...ids), fc.nat(5));
    fc.assert(fc.property(counts, counts, fc.integer({ min: 1, max: 4 }), (queued, inFlight, perEndpoint) => {
      const next = nextToAttempt(queues(queued), map(inFlight), perEndpoint);
      const eligible = ids.filter((id) => (queued[id] ?? 0) > 0 && (inFlight[id] ?? 0) < perEndpoint);
      if (eligible.length === 0) expect(next).toBeUndefined();
      else expect(eligible).toContain(next);
    }), { numRuns: 500 });
  });

  it('with the endpoint served moved to the back, as the worker does, endpoints are served in turn: none starts twice while another waits', () => {
    fc.assert(fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.integer({ min: 1, max: 4 })), (lengths) => {
      const waiting = queues(lengths);
      const served: string[] = [];
      for (let next = nextToAttempt(waiting, none, 1); next !== undefined; next = nextToAttempt(waiting, none, 1)) {
        served.push(next);
        const queue = waiting.get(next)!;
        queue.pop();
        waiting.delete(next);
        if (queue.length > 0) waiting.set(next, queue);
      }
      expect(served.length).toBe(Object.values(lengths).reduce((sum, n) => sum + n, 0));
      // Between two starts of one endpoint, every endpoint that still had something queued started once.
      served.forEach((endpointId, i) => {
        const again = served.indexOf(endpointId, i + 1);
        if (again === -1) return;
        const stillQueued = new Set(served.slice(i + 1));
        expect(new Set(served.slice(i + 1, again))).toEqual(new Set([...stillQueued].filter((id) => id !== endpointId)));
      });
    }), { numRuns: 300 });
  });
});
