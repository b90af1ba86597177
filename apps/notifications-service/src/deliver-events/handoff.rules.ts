/**
 * How many of a recording's new deliveries this process's worker takes at once, leased to it in the transaction
 * that records them; the others wait, unleased, for a claim. Pure.
 */

export interface HandoffLimits {
  /** Deliveries the worker may still hold in all (queued, in flight or awaiting their settlement), promised ones out. */
  freeToHold: number;
  /** Deliveries of one endpoint the worker holds at most. */
  perEndpoint: number;
}

/**
 * Per endpoint, in the order asked, never more than wanted:
 * - none while another replica holds leases of it (its leased count, read in the recording, exceeds what this
 *   worker holds): that replica's attempts count against the endpoint's cap, which only a claim checks;
 * - at most what the endpoint's room allows (`perEndpoint` less what the worker holds of it and has promised to
 *   recordings not committed yet), and what the worker may still hold in all.
 * The map holds only endpoints given some.
 */
export function handoffShares(
  wanted: ReadonlyMap<string, number>,
  leased: ReadonlyMap<string, number>,
  held: ReadonlyMap<string, number>,
  promised: ReadonlyMap<string, number>,
  limits: HandoffLimits,
): Map<string, number> {
  const shares = new Map<string, number>();
  let free = Math.max(0, limits.freeToHold);
  for (const [endpointId, count] of wanted) {
    if (free === 0) break;
    const mine = held.get(endpointId) ?? 0;
    if ((leased.get(endpointId) ?? 0) > mine) continue;
    const room = limits.perEndpoint - mine - (promised.get(endpointId) ?? 0);
    const share = Math.min(count, Math.max(0, room), free);
    if (share > 0) {
      shares.set(endpointId, share);
      free -= share;
    }
  }
  return shares;
}

/** What the worker holds (queued, in flight or awaiting their settlement) and has promised to open recordings. */
export interface HoldState {
  held: number;
  promised: number;
  /** The characters of the held deliveries' bodies, each counted once per delivery. */
  heldChars: number;
  /** The characters promised: each promised delivery counted at its recording's longest body. */
  promisedChars: number;
}

export interface HoldLimits {
  /** Deliveries held at most. */
  most: number;
  /** The characters of bodies held at most: a conversation.ended with its transcript may be 256 KiB. */
  bodyChars: number;
}

/**
 * How many more deliveries, none with a body longer than `longestBody`, the worker may take: within the count it
 * may hold and its budget of body characters (a delivery counts at its recording's longest body: an over-estimate,
 * on the safe side). Never negative.
 */
export function roomToHold(state: HoldState, limits: HoldLimits, longestBody: number): number {
  const byCount = limits.most - state.held - state.promised;
  const byBodies = Math.floor((limits.bodyChars - state.heldChars - state.promisedChars) / Math.max(1, longestBody));
  return Math.max(0, Math.min(byCount, byBodies));
}

/**
 * The next endpoint whose queued delivery may start: the first in the queues' order with something queued and
 * fewer than `perEndpoint` attempts in flight; undefined when none may. The worker moves an endpoint to the back
 * of the order once one of its deliveries starts, so endpoints are served in turn.
 */
export function nextToAttempt(
  queues: ReadonlyMap<string, { readonly length: number }>,
  inFlight: ReadonlyMap<string, number>,
  perEndpoint: number,
): string | undefined {
  for (const [endpointId, queue] of queues) {
    if (queue.length > 0 && (inFlight.get(endpointId) ?? 0) < perEndpoint) return endpointId;
  }
  return undefined;
}
