/**
 * Retry an event of a not-yet-known agent soon (its agent event is usually just
 * behind), then less and less often: an agent id that never comes costs little.
 */
export function unknownAgentDelay(baseMs: number, deliveryCount: number): number {
  return Math.min(baseMs * 2 ** Math.min(Math.max(deliveryCount - 1, 0), 16), 5 * 60_000);
}
