import { describe, expect, it } from '@jest/globals';
import { parseCallEvents } from './call-event-batch.js';

const started = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'call.started',
  conversation_id: 'conv-1',
  agent_id: 'agent-1',
  occurred_at: '2025-01-31T14:05:00Z',
  data: { caller_number: '+14155550100', start_time: '2025-01-31T14:05:00Z' },
  ...extra,
});

describe('parseCallEvents', () => {
  it('accepts one event or a batch', () => {
    expect(parseCallEvents(started('e1'))).toMatchObject({ ok: true, events: [{ path: '' }] });
    const batch = parseCallEvents({ events: [started('e1'), started('e2')] });
    expect(batch).toMatchObject({ ok: true, events: [{ path: 'events[0]' }, { path: 'events[1]' }] });
  });

  it('names the first bad event by index and field', () => {
    const bad = { ...started('e2'), data: { caller_number: '555', start_time: '2025-01-31T14:05:00Z' } };
    expect(parseCallEvents({ events: [started('e1'), bad, { nope: true }] })).toMatchObject({
      ok: false,
      problem: { code: 'invalid_parameter', field: 'events[1].data.caller_number' },
    });
    expect(parseCallEvents(bad)).toMatchObject({ ok: false, problem: { field: 'data.caller_number' } });
  });

  it('bounds the batch to 1..500 events', () => {
    expect(parseCallEvents({ events: [] })).toMatchObject({ ok: false, problem: { code: 'invalid_parameter', field: 'events' } });
    const many = Array.from({ length: 501 }, (_, i) => started(`e${i}`));
    expect(parseCallEvents({ events: many })).toMatchObject({ ok: false, problem: { field: 'events' } });
    expect(parseCallEvents({ events: many.slice(0, 500) })).toMatchObject({ ok: true });
    expect(parseCallEvents({ events: 'x' })).toMatchObject({ ok: false, problem: { field: 'events' } });
  });

  it('refuses non-objects and unknown batch fields', () => {
    expect(parseCallEvents([started('e1')])).toMatchObject({ ok: false, problem: { code: 'invalid_request' } });
    expect(parseCallEvents({ events: [started('e1')], extra: 1 })).toMatchObject({ ok: false, problem: { code: 'invalid_parameter', field: 'extra' } });
  });
});
