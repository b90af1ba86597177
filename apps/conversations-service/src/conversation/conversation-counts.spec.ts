import { describe, expect, it } from '@jest/globals';
import { countChanges, facetsOf, type CountedColumns } from './conversation-counts.js';

const row = (over: Partial<CountedColumns> = {}): CountedColumns => ({
  account_id: 'acc_1', agent_id: 'agt_1', status: 'in_progress', sentiment: null, outcome: null,
  has_recording: false, has_transcript: false, topics_lower: [], start_hour: '2025-01-02 10', duration: 0, ...over,
});

describe('conversation counts', () => {
  it('counts a conversation under each known value, never under an unknown one, and under each distinct topic once', () => {
    expect(facetsOf(row({ status: 'completed', sentiment: 'negative', outcome: 'resolved', has_recording: true, topics_lower: ['billing', 'billing', 'refund'] }))).toEqual([
      ['status', 'completed'], ['agent_id', 'agt_1'], ['status:agent_id', 'completed:agt_1'], ['sentiment', 'negative'], ['outcome', 'resolved'],
      ['has_recording', 'true'], ['has_transcript', 'false'],
      ['topic', 'billing'], ['status:topic', 'completed:billing'], ['day:topic:billing', '2025-01-02'], ['day:status:completed:topic:billing', '2025-01-02'],
      ['topic', 'refund'], ['status:topic', 'completed:refund'], ['day:topic:refund', '2025-01-02'], ['day:status:completed:topic:refund', '2025-01-02'],
      ['duration', '0'], ['day', '2025-01-02'], ['hour:2025-01-02', '10'], ['day:status:completed', '2025-01-02'], ['day:has_recording:true', '2025-01-02'],
    ]);
    expect(facetsOf(row()).map(([facet]) => facet)).toEqual([
      'status', 'agent_id', 'status:agent_id', 'has_recording', 'has_transcript', 'duration', 'day', 'hour:2025-01-02', 'day:status:in_progress', 'day:has_recording:false',
    ]);
  });

  it('a new conversation adds one under each of its values', () => {
    expect(countChanges([{ before: undefined, after: row() }])).toEqual([
      { account_id: 'acc_1', facet: 'agent_id', value: 'agt_1', delta: 1 },
      { account_id: 'acc_1', facet: 'day', value: '2025-01-02', delta: 1 },
      { account_id: 'acc_1', facet: 'day:has_recording:false', value: '2025-01-02', delta: 1 },
      { account_id: 'acc_1', facet: 'day:status:in_progress', value: '2025-01-02', delta: 1 },
      { account_id: 'acc_1', facet: 'duration', value: '0', delta: 1 },
      { account_id: 'acc_1', facet: 'has_recording', value: 'false', delta: 1 },
      { account_id: 'acc_1', facet: 'has_transcript', value: 'false', delta: 1 },
      { account_id: 'acc_1', facet: 'hour:2025-01-02', value: '10', delta: 1 },
      { account_id: 'acc_1', facet: 'status', value: 'in_progress', delta: 1 },
      { account_id: 'acc_1', facet: 'status:agent_id', value: 'in_progress:agt_1', delta: 1 },
    ]);
  });

  it('an update moves the conversation from its old values to its new ones, leaving the unchanged ones alone', () => {
    const before = row({ topics_lower: ['billing'] });
    const after = row({ status: 'completed', sentiment: 'positive', topics_lower: ['sales'], duration: 95 });
    expect(countChanges([{ before, after }])).toEqual([
      { account_id: 'acc_1', facet: 'day:status:completed', value: '2025-01-02', delta: 1 },
      { account_id: 'acc_1', facet: 'day:status:completed:topic:sales', value: '2025-01-02', delta: 1 },
      { account_id: 'acc_1', facet: 'day:status:in_progress', value: '2025-01-02', delta: -1 },
      { account_id: 'acc_1', facet: 'day:status:in_progress:topic:billing', value: '2025-01-02', delta: -1 },
      { account_id: 'acc_1', facet: 'day:topic:billing', value: '2025-01-02', delta: -1 },
      { account_id: 'acc_1', facet: 'day:topic:sales', value: '2025-01-02', delta: 1 },
      { account_id: 'acc_1', facet: 'duration', value: '0', delta: -1 },
      { account_id: 'acc_1', facet: 'duration', value: '95', delta: 1 },
      { account_id: 'acc_1', facet: 'sentiment', value: 'positive', delta: 1 },
      { account_id: 'acc_1', facet: 'status', value: 'completed', delta: 1 },
      { account_id: 'acc_1', facet: 'status', value: 'in_progress', delta: -1 },
      { account_id: 'acc_1', facet: 'status:agent_id', value: 'completed:agt_1', delta: 1 },
      { account_id: 'acc_1', facet: 'status:agent_id', value: 'in_progress:agt_1', delta: -1 },
      { account_id: 'acc_1', facet: 'status:topic', value: 'completed:sales', delta: 1 },
      { account_id: 'acc_1', facet: 'status:topic', value: 'in_progress:billing', delta: -1 },
      { account_id: 'acc_1', facet: 'topic', value: 'billing', delta: -1 },
      { account_id: 'acc_1', facet: 'topic', value: 'sales', delta: 1 },
    ]);
    expect(countChanges([{ before: after, after }])).toEqual([]);
  });

  it('a start moved to another day moves the conversation between the days and hours', () => {
    const moved = countChanges([{ before: row({ start_hour: '2025-01-02 10', topics_lower: ['billing'] }), after: row({ start_hour: '2025-01-01 23', topics_lower: ['billing'] }) }]);
    expect(moved.filter((c) => c.facet.startsWith('hour'))).toEqual([
      { account_id: 'acc_1', facet: 'hour:2025-01-01', value: '23', delta: 1 },
      { account_id: 'acc_1', facet: 'hour:2025-01-02', value: '10', delta: -1 },
    ]);
    expect(moved.filter((c) => c.facet.startsWith('day'))).toEqual([
      { account_id: 'acc_1', facet: 'day', value: '2025-01-01', delta: 1 },
      { account_id: 'acc_1', facet: 'day', value: '2025-01-02', delta: -1 },
      { account_id: 'acc_1', facet: 'day:has_recording:false', value: '2025-01-01', delta: 1 },
      { account_id: 'acc_1', facet: 'day:has_recording:false', value: '2025-01-02', delta: -1 },
      { account_id: 'acc_1', facet: 'day:status:in_progress', value: '2025-01-01', delta: 1 },
      { account_id: 'acc_1', facet: 'day:status:in_progress', value: '2025-01-02', delta: -1 },
      { account_id: 'acc_1', facet: 'day:status:in_progress:topic:billing', value: '2025-01-01', delta: 1 },
      { account_id: 'acc_1', facet: 'day:status:in_progress:topic:billing', value: '2025-01-02', delta: -1 },
      { account_id: 'acc_1', facet: 'day:topic:billing', value: '2025-01-01', delta: 1 },
      { account_id: 'acc_1', facet: 'day:topic:billing', value: '2025-01-02', delta: -1 },
    ]);
  });

  it('sums the changes of a batch per account and value, sorted so transactions lock shared counters in one order', () => {
    const changes = countChanges([
      { before: undefined, after: row({ account_id: 'acc_2' }) },
      { before: undefined, after: row({ agent_id: 'agt_2' }) },
      { before: row({ agent_id: 'agt_2' }), after: row({ agent_id: 'agt_2', status: 'failed' }) },
    ]);
    expect(changes.filter((c) => c.facet === 'status')).toEqual([
      { account_id: 'acc_1', facet: 'status', value: 'failed', delta: 1 },
      { account_id: 'acc_2', facet: 'status', value: 'in_progress', delta: 1 },
    ]);
    const keys = changes.map((c) => [c.account_id, c.facet, c.value].join('\u0001'));
    expect(keys).toEqual([...keys].sort());
  });
});
