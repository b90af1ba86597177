/**
 * A check whose result many callers share: callers while it runs get the run in flight, and its result is handed
 * out again for `keepMs(result)` milliseconds after it came in (counted from then, so a slow run is still worth its
 * full time). A run that throws is not kept: the next caller runs it again.
 */
export class SharedCheck<T> {
  private inFlight: Promise<T> | undefined;
  private last: { result: T; until: number } | undefined;

  constructor(
    private readonly keepMs: (result: T) => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The result still kept, else the run in flight, else `run()` — started by this caller, shared with the next. */
  get(run: () => Promise<T>): Promise<T> {
    if (this.last && this.now() < this.last.until) return Promise.resolve(this.last.result);
    if (this.inFlight) return this.inFlight;
    const running = run();
    this.inFlight = running;
    running.then(
      (result) => {
        this.last = { result, until: this.now() + this.keepMs(result) };
        this.inFlight = undefined;
      },
      () => {
        this.inFlight = undefined;
      },
    );
    return running;
  }
}
