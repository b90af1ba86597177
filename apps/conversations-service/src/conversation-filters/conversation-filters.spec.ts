import { describe, expect, it } from '@jest/globals';
import { CONVERSATION_FILTER_PARAMETERS, conversationMatches, SENTIMENT_RANKS, sentimentRank } from '@voice/contracts';
import { answeredByColumns, compileRowChecks, filterPredicates, keptWithin, rowsWithin, type HeldColumns } from './conversation-filters.js';

describe('filterPredicates', () => {
  it('writes each filter as the comparison its index serves, in the table’s order, binding its value', () => {
    const params: unknown[] = ['acc'];
    const predicates = filterPredicates({
      topic: 'billing', search: '50%_off', has_transcript: false, has_recording: true, end_date: 'E', start_date: 'S', max_cost: '2', min_cost: '0.5',
      max_duration: 9, min_duration: 3, caller: '+1', outcome: 'resolved', sentiment: 'neutral', status: 'completed', agent_id: 'agt',
    }, params);
    expect(predicates.map((p) => p.parameter)).toEqual(CONVERSATION_FILTER_PARAMETERS);
    expect(predicates.map((p) => p.sql('c'))).toEqual([
      'c.agent_id = $2', 'c.status = $3', 'c.sentiment_rank = $4::smallint', 'c.outcome = $5', 'c.caller_number = $6',
      'c.duration >= $7::int', 'c.duration <= $8::int', 'c.cost_amount >= $9::numeric', 'c.cost_amount <= $10::numeric',
      'c.start_time >= $11::timestamptz', 'c.start_time <= $12::timestamptz', 'c.has_recording = $13::boolean', 'c.has_transcript = $14::boolean',
      "c.search_text LIKE $15 ESCAPE '\\'",
      'EXISTS (SELECT 1 FROM conversations.conversation_topics t WHERE t.account_id = $1 AND t.topic = $16 AND t.conversation_id = c.id)',
    ]);
    expect(params).toEqual(['acc', 'agt', 'completed', 1, 'resolved', '+1', 3, 9, '0.5', '2', 'S', 'E', true, false, '%50\\%\\_off%', 'billing']);
    expect(predicates.at(-1)!.onOwnTable('d')).toBe('d.topic = $16');
    expect(predicates.at(-2)!.onOwnTable('d')).toBe("d.search_text LIKE $15 ESCAPE '\\'");
  });

  it('writes nothing for no filter', () => {
    const params: unknown[] = ['acc'];
    expect(filterPredicates({}, params)).toEqual([]);
    expect(params).toEqual(['acc']);
  });
});

describe('compileRowChecks', () => {
  const columns: Partial<Record<string, ReturnType<HeldColumns['field']>>> = {
    agent_id: { values: [0, 1, 0], code: (v) => (v === 'a' ? 0 : v === 'b' ? 1 : undefined) },
    duration: { values: [5, 10, 15], code: Number },
    sentiment: { values: [2, -1, 0], code: (v) => sentimentRank(String(v)) ?? undefined },
    topics: { values: [], code: (v) => (v === 'billing' ? 7 : undefined) },
  };
  const held: HeldColumns = { field: (name) => columns[name] };

  it('turns equality into a one-value range and bounds into half-open ranges, both bounds of a field into one', () => {
    expect(compileRowChecks({ agent_id: 'b', min_duration: 10, max_duration: 12, sentiment: 'negative' }, held)).toEqual({
      values: [[0, 1, 0], [2, -1, 0], [5, 10, 15]],
      min: [1, 0, 10],
      max: [1, 0, 12],
      includes: [],
    });
    expect(compileRowChecks({ min_duration: 10 }, held)).toEqual({ values: [[5, 10, 15]], min: [10], max: [Infinity], includes: [] });
    expect(compileRowChecks({ max_duration: 10 }, held)).toEqual({ values: [[5, 10, 15]], min: [-Infinity], max: [10], includes: [] });
    expect(compileRowChecks({ topic: 'billing' }, held)).toEqual({ values: [], min: [], max: [], includes: [{ field: 'topics', code: 7 }] });
  });

  it('selects nothing for a value no row holds, and leaves to SQL a filter on a field not held or a search not answered otherwise', () => {
    expect(compileRowChecks({ agent_id: 'unknown' }, held)).toBe('nothing');
    expect(compileRowChecks({ topic: 'unknown', min_duration: 1 }, held)).toBe('nothing');
    expect(compileRowChecks({ caller: '+1' }, held)).toBeUndefined();
    expect(compileRowChecks({ search: 'refund' }, held)).toBeUndefined();
    expect(compileRowChecks({ search: 'refund', agent_id: 'a' }, held, ['search'])).toEqual({ values: [[0, 1, 0]], min: [0], max: [0], includes: [] });
  });

  it('selects the rows within a range, first from all rows, then among those kept (NaN, a missing cost, is never within)', () => {
    const rows = new Int32Array(5);
    expect(rowsWithin(Float64Array.from([3, NaN, 5, 1, 4]), 3, Infinity, 5, rows)).toBe(3);
    expect([...rows.subarray(0, 3)]).toEqual([0, 2, 4]);
    expect(keptWithin(Int32Array.from([9, 9, 7, 9, 8]), 7, 7, rows, 3)).toBe(1);
    expect(rows[0]).toBe(2);
    expect(rowsWithin(Float64Array.from([NaN]), -Infinity, Infinity, 1, rows)).toBe(0);
  });

  it('answeredByColumns: every given filter but the skipped is on a held field', () => {
    const fields = new Set(['agent_id', 'duration'] as const);
    expect(answeredByColumns({ agent_id: 'a', min_duration: 1 }, fields)).toBe(true);
    expect(answeredByColumns({ agent_id: 'a', min_cost: '1' }, fields)).toBe(false);
    expect(answeredByColumns({ search: 'x' }, fields)).toBe(false);
    expect(answeredByColumns({ search: 'x' }, fields, ['search'])).toBe(true);
  });
});

describe('the contracts’ predicate over one conversation', () => {
  const conversation = { agent_id: 'a', status: 'completed', sentiment: 'neutral', duration: 10, cost: null, start_time: 100, search_text: 'refund issued', topics: ['billing'] };

  it('applies each filter’s comparison: equal, inclusive bounds, substring, membership; a missing value passes no bound', () => {
    expect(conversationMatches(conversation, {})).toBe(true);
    expect(conversationMatches(conversation, { agent_id: 'a', status: 'completed', sentiment: 'neutral' })).toBe(true);
    expect(conversationMatches(conversation, { agent_id: 'b' })).toBe(false);
    expect(conversationMatches(conversation, { min_duration: 10, max_duration: 10, start_date: 100, end_date: 100 })).toBe(true);
    expect(conversationMatches(conversation, { min_duration: 11 })).toBe(false);
    expect(conversationMatches(conversation, { end_date: 99 })).toBe(false);
    expect(conversationMatches(conversation, { min_cost: 0 })).toBe(false);
    expect(conversationMatches(conversation, { max_cost: 5 })).toBe(false);
    expect(conversationMatches(conversation, { search: 'fund iss', topic: 'billing' })).toBe(true);
    expect(conversationMatches(conversation, { search: 'refunds' })).toBe(false);
    expect(conversationMatches(conversation, { topic: 'bill' })).toBe(false);
  });

  it('ranks sentiments negative < neutral < positive, and nothing else', () => {
    expect(SENTIMENT_RANKS).toEqual({ negative: 0, neutral: 1, positive: 2 });
    expect([sentimentRank('negative'), sentimentRank('neutral'), sentimentRank('positive')]).toEqual([0, 1, 2]);
    expect([sentimentRank(null), sentimentRank(undefined), sentimentRank('Positive'), sentimentRank('toString')]).toEqual([null, null, null, null]);
  });
});
