/** What one attempt of a delivery (or the test event's) came to, in words: "200 in 42 ms", "timeout after 15000 ms". */
export function attemptOutcome(attempt: { status_code: number | null; error: string | null; duration_ms: number }): string {
  const took = `${attempt.duration_ms} ms`;
  if (attempt.status_code !== null) return `HTTP ${attempt.status_code} in ${took}`;
  return `${attempt.error ?? 'No answer'} after ${took}`;
}

/** An endpoint's filter as a short phrase: null means every value, including ones added later. */
export function filterSummary(values: readonly string[] | null, all: string, name: (value: string) => string = (v) => v): string {
  if (values === null) return all;
  return values.map(name).join(', ');
}
