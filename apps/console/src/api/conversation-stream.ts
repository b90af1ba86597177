import { parseEventStream, reconnectDelayMs } from '../rules/event-stream';
import { currentKey } from '../session/session';
import type { Schemas } from './client';

export type StreamState = 'connecting' | 'open' | 'retrying';
type Item = Schemas['ConversationListItem'];
type Listener = { onItem: (item: Item) => void; onGap?: () => void; onState?: (state: StreamState) => void };

/**
 * One GET /v1/conversations/stream for the whole tab, shared by every view that follows it (the API allows five
 * per key). Read with fetch rather than EventSource, which cannot send the Authorization header. It resumes
 * from the last id after a drop; an id the API no longer keeps means a gap, and the views reload their lists.
 */
const listeners = new Set<Listener>();
let controller: AbortController | undefined;
let lastEventId: string | undefined;
let state: StreamState = 'connecting';

function setState(next: StreamState) {
  state = next;
  for (const l of listeners) l.onState?.(next);
}

async function run(signal: AbortSignal) {
  let failures = 0;
  while (!signal.aborted) {
    setState(failures ? 'retrying' : 'connecting');
    try {
      const headers: Record<string, string> = { Accept: 'text/event-stream', Authorization: `Bearer ${currentKey() ?? ''}` };
      if (lastEventId) headers['Last-Event-ID'] = lastEventId;
      const response = await fetch('/v1/conversations/stream', { headers, signal });
      if (response.status === 400 && lastEventId) {
        // The id is no longer kept: start again from now, and let the views read their lists afresh.
        lastEventId = undefined;
        for (const l of listeners) l.onGap?.();
        continue;
      }
      if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
      setState('open');
      failures = 0;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const { events, rest } = parseEventStream(buffer + value);
        buffer = rest;
        for (const event of events) {
          if (event.id) lastEventId = event.id;
          if (event.event !== 'conversation.created' && event.event !== 'conversation.updated') continue;
          const item = JSON.parse(event.data) as Item;
          for (const l of listeners) l.onItem(item);
        }
      }
    } catch {
      if (signal.aborted) return;
    }
    failures += 1;
    setState('retrying');
    await new Promise((resolve) => setTimeout(resolve, reconnectDelayMs(failures)));
  }
}

/** Follow the account's conversation changes; the stream closes when the last follower leaves. */
export function followConversations(listener: Listener): () => void {
  listeners.add(listener);
  listener.onState?.(state);
  if (!controller) {
    controller = new AbortController();
    void run(controller.signal);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      controller?.abort();
      controller = undefined;
      lastEventId = undefined;
      state = 'connecting';
    }
  };
}
