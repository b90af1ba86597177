import { useEffect, useRef, useState } from 'react';
import type { Schemas } from '../api/client';
import { followConversations, type StreamState } from '../api/conversation-stream';

/** Calls `onItem` for each conversation change while `enabled`; `onGap` when changes were missed. Returns the stream's state. */
export function useConversationStream(onItem: (item: Schemas['ConversationListItem']) => void, { enabled = true, onGap }: { enabled?: boolean; onGap?: () => void } = {}): StreamState | 'paused' {
  const handlers = useRef({ onItem, onGap });
  handlers.current = { onItem, onGap };
  const [state, setState] = useState<StreamState>('connecting');
  useEffect(() => {
    if (!enabled) return undefined;
    return followConversations({ onItem: (item) => handlers.current.onItem(item), onGap: () => handlers.current.onGap?.(), onState: setState });
  }, [enabled]);
  return enabled ? state : 'paused';
}
