import { describe, expect, it } from '@jest/globals';
import { changeMatchesFilter, type ConversationListItem } from '@voice/contracts';
import { eventId, NewerVersionsOnly, parseLastEventId, resumeProblem, sseComment, sseEvent, sseRetry } from './conversation-stream.rules.js';

describe('Server-Sent Events framing', () => {
  it('writes id, event and data lines, then a blank line', () => {
    expect(sseEvent('42', 'conversation.updated', '{"id":"c1"}')).toBe('id: 42\nevent: conversation.updated\ndata: {"id":"c1"}\n\n');
  });

  it('splits a payload with line breaks into data lines, so no line of it can end the event early or forge a field', () => {
    expect(sseEvent('1', 'e', 'a\nid: 99\r\nb')).toBe('id: 1\nevent: e\ndata: a\ndata: id: 99\ndata: b\n\n');
  });

  it('keeps id, event and comments on one line whatever they hold', () => {
    expect(sseEvent('1\n\ndata: x', 'e\nf', '{}')).toBe('id: 1 data: x\nevent: e f\ndata: {}\n\n');
    expect(sseComment('bye\n\nid: 3')).toBe(': bye id: 3\n\n');
    expect(sseRetry(1000.4)).toBe('retry: 1000\n\n');
  });
});

describe('Last-Event-ID', () => {
  it('absent or empty: a new stream', () => {
    expect(parseLastEventId(undefined)).toEqual({ ok: true });
    expect(parseLastEventId('  ')).toEqual({ ok: true });
  });

  it('an event id (stream creation time and sequence) resumes after it, and is what eventId writes', () => {
    expect(parseLastEventId(' 1767225600000-1042 ')).toEqual({ ok: true, after: { createdMs: 1767225600000, sequence: 1042 } });
    expect(parseLastEventId(eventId({ createdMs: 5, sequence: 0 }))).toEqual({ ok: true, after: { createdMs: 5, sequence: 0 } });
  });

  it.each([['abc'], ['1042'], ['-1'], ['1-2-3'], ['1.5-2'], ['1e3-1'], ['99999999999999999-1'], ['1-12345678901234567890']])(
    'refuses %p with field Last-Event-ID',
    (raw) => {
      expect(parseLastEventId(raw)).toEqual({ ok: false, problem: expect.objectContaining({ code: 'invalid_parameter', field: 'Last-Event-ID' }) });
    },
  );

  it('refuses the header given twice', () => {
    expect(parseLastEventId(['1-1', '1-2'])).toMatchObject({ ok: false, problem: { field: 'Last-Event-ID' } });
  });
});

describe('resumeProblem', () => {
  const createdMs = 1767225600000;
  const kept = { first: 100, last: 200, createdMs };
  const at = (sequence: number, created = createdMs) => ({ createdMs: created, sequence });

  it('resumes from any id from the one before the oldest kept to the newest', () => {
    expect(resumeProblem(at(99), kept)).toBeUndefined();
    expect(resumeProblem(at(150), kept)).toBeUndefined();
    expect(resumeProblem(at(200), kept)).toBeUndefined();
  });

  it('refuses an id whose next events are gone, and one never sent', () => {
    expect(resumeProblem(at(98), kept)).toMatchObject({ code: 'invalid_parameter', field: 'Last-Event-ID', message: expect.stringMatching(/no longer kept/) });
    expect(resumeProblem(at(201), kept)).toMatchObject({ code: 'invalid_parameter', field: 'Last-Event-ID', message: expect.stringMatching(/never sent/) });
  });

  it('refuses an id of a stream created before this one (its sequences started again), whatever its sequence', () => {
    expect(resumeProblem(at(150, createdMs - 1), kept)).toMatchObject({ field: 'Last-Event-ID', message: expect.stringMatching(/no longer kept/) });
    expect(resumeProblem(at(150, createdMs + 1), kept)).toMatchObject({ field: 'Last-Event-ID', message: expect.stringMatching(/never sent/) });
  });

  it('an empty stream (first = last + 1) resumes from its last sequence only', () => {
    expect(resumeProblem(at(0), { first: 1, last: 0, createdMs })).toBeUndefined();
    expect(resumeProblem(at(7), { first: 8, last: 7, createdMs })).toBeUndefined();
    expect(resumeProblem(at(6), { first: 8, last: 7, createdMs })).toBeDefined();
  });
});

describe('filter matching', () => {
  const item = { id: 'c1', agent_id: 'agt_1', status: 'completed' } as ConversationListItem;

  it('no filter: everything', () => {
    expect(changeMatchesFilter({ conversation: item }, {})).toBe(true);
  });

  it('agent_id and status select as the list does, and combine', () => {
    expect(changeMatchesFilter({ conversation: item }, { agent_id: 'agt_1' })).toBe(true);
    expect(changeMatchesFilter({ conversation: item }, { agent_id: 'agt_2' })).toBe(false);
    expect(changeMatchesFilter({ conversation: item }, { status: 'completed' })).toBe(true);
    expect(changeMatchesFilter({ conversation: item }, { status: 'in_progress' })).toBe(false);
    expect(changeMatchesFilter({ conversation: item }, { agent_id: 'agt_1', status: 'failed' })).toBe(false);
  });
});

describe('NewerVersionsOnly', () => {
  it('admits each newer version and drops an older or repeated one', () => {
    const versions = new NewerVersionsOnly();
    expect([1, 2, 2, 1, 4, 3].map((v) => versions.admit('c1', v))).toEqual([true, true, false, false, true, false]);
    expect(versions.admit('c2', 1)).toBe(true);
  });

  it('forgets the conversation changed least recently past its capacity', () => {
    const versions = new NewerVersionsOnly(2);
    versions.admit('a', 5);
    versions.admit('b', 5);
    versions.admit('a', 6);
    versions.admit('c', 5);
    expect(versions.admit('a', 6)).toBe(false);
    expect(versions.admit('b', 1)).toBe(true);
  });
});
