/**
 * Re-run `probe` until `accept` holds or the time is up, then return the last value
 * (the caller's assertion on it explains a timeout better than a generic error would).
 */
export async function pollUntil<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs: number, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
