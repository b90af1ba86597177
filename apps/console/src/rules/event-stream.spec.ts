import { describe, expect, it } from '@jest/globals';
import { parseEventStream, reconnectDelayMs, withChangedItem } from './event-stream';

describe('parseEventStream', () => {
  it('reads complete events and keeps an unfinished one for the next chunk', () => {
    const { events, rest } = parseEventStream('retry: 1000\n\n: stream open\n\nid: 1-1\nevent: conversation.created\ndata: {"id":"c1"}\n\nid: 1-2\nevent: conv');
    expect(events).toEqual([{ id: '1-1', event: 'conversation.created', data: '{"id":"c1"}' }]);
    expect(rest).toBe('id: 1-2\nevent: conv');
    expect(parseEventStream(`${rest}ersation.updated\ndata: {"id":"c2"}\n\n`).events).toEqual([{ id: '1-2', event: 'conversation.updated', data: '{"id":"c2"}' }]);
  });
  it('skips heartbeats, joins multi-line data and accepts CRLF', () => {
    expect(parseEventStream(': heartbeat\r\n\r\ndata: a\r\ndata: b\r\n\r\n').events).toEqual([{ event: 'message', data: 'a\nb' }]);
  });
});

describe('reconnectDelayMs', () => {
  it('backs off from 1 s, doubling, to at most 30 s', () => {
    expect([1, 2, 3, 10].map(reconnectDelayMs)).toEqual([1000, 2000, 4000, 30_000]);
  });
});

describe('withChangedItem', () => {
  it('replaces the item where it is shown, and says when it is not on the page', () => {
    const page = [{ id: 'a', status: 'in_progress' }, { id: 'b', status: 'completed' }];
    expect(withChangedItem(page, { id: 'a', status: 'completed' })).toEqual({ items: [{ id: 'a', status: 'completed' }, page[1]], found: true });
    expect(withChangedItem(page, { id: 'z', status: 'completed' }).found).toBe(false);
  });
});
