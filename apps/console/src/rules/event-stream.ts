/** One Server-Sent Event as the stream sends it (comments and retry lines are not events). */
export interface StreamEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * The complete events at the front of what a text/event-stream has sent so far, and the unfinished rest to keep
 * for the next chunk (the stream's own framing: blank-line separated blocks of `field: value` lines).
 */
export function parseEventStream(text: string): { events: StreamEvent[]; rest: string } {
  const normalised = text.replace(/\r\n?/g, '\n');
  const blocks = normalised.split('\n\n');
  const rest = blocks.pop() ?? '';
  const events: StreamEvent[] = [];
  for (const block of blocks) {
    let id: string | undefined;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length) events.push({ ...(id !== undefined ? { id } : {}), event, data: data.join('\n') });
  }
  return { events, rest };
}

/** How long to wait before reconnecting after the n-th failure in a row: 1 s, 2 s, 4 s… at most 30 s. */
export function reconnectDelayMs(failures: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));
}

/** A conversation list item changed by the stream, applied to a page of the list: replaced where it is shown. */
export function withChangedItem<Item extends { id: string }>(items: readonly Item[], changed: Item): { items: Item[]; found: boolean } {
  const index = items.findIndex((item) => item.id === changed.id);
  if (index < 0) return { items: [...items], found: false };
  const next = [...items];
  next[index] = changed;
  return { items: next, found: true };
}
