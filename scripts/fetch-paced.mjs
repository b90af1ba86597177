/**
 * fetch that waits out a 429: the gateway refuses before doing anything, so the same request is sent again once
 * Retry-After says the key's budget has room (a few times at most; then the 429 is reported like any refusal).
 * Shared by the operator CLI and the call simulator, whose long runs (exports, thousands of calls) meet the limits.
 */
export async function fetchPaced(url, init) {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url, init);
    if (res.status !== 429 || attempt >= 6) return res;
    await res.arrayBuffer();
    const seconds = Number(res.headers.get('retry-after'));
    await new Promise((r) => setTimeout(r, (Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 60) : 1) * 1000));
  }
}
