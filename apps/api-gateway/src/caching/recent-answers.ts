/**
 * Service answers the gateway keeps for a while, each with its age, at most `capacity` of them: the oldest
 * go first, so a flood of distinct keys (random integration or agent ids) cannot grow the memory.
 */
export class RecentAnswers<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(private readonly capacity: number) {}

  /** The remembered value and how old it is (ms), if any. */
  get(key: string, now = Date.now()): { value: V; ageMs: number } | undefined {
    const entry = this.entries.get(key);
    return entry && { value: entry.value, ageMs: now - entry.at };
  }

  remember(key: string, value: V, now = Date.now()): void {
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, at: now });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every value `matches` accepts (a linear sweep: for rare changes, such as a revoked key). */
  forgetWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }
}
