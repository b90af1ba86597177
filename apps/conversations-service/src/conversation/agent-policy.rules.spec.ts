import { describe, expect, it } from '@jest/globals';
import { agentStatusAt, answersCallStartingAt, mayRefuseCalls, type AgentStatusChange } from './agent-policy.rules.js';

const t = (iso: string) => Date.parse(iso);
// Created, paused at 10:00, resumed at 11:00, deleted at 12:00.
const history: AgentStatusChange[] = [
  { version: 1, status: 'active', since_ms: t('2026-01-01T09:00:00Z') },
  { version: 3, status: 'paused', since_ms: t('2026-01-01T10:00:00Z') },
  { version: 4, status: 'active', since_ms: t('2026-01-01T11:00:00Z') },
  { version: 6, status: 'deleted', since_ms: t('2026-01-01T12:00:00Z') },
];

describe('is the agent answering when a call starts', () => {
  it('follows the status changes in time, whatever order they were learnt in', () => {
    const shuffled = [history[2], history[0], history[3], history[1]];
    for (const h of [history, shuffled]) {
      expect(agentStatusAt(h, t('2026-01-01T09:30:00Z'))).toBe('active');
      expect(agentStatusAt(h, t('2026-01-01T10:00:00Z'))).toBe('paused');
      expect(agentStatusAt(h, t('2026-01-01T10:59:59.999Z'))).toBe('paused');
      expect(agentStatusAt(h, t('2026-01-01T11:00:00Z'))).toBe('active');
      expect(agentStatusAt(h, t('2026-01-01T13:00:00Z'))).toBe('deleted');
    }
  });

  it('refuses calls starting at or after a pause or deletion, not those that started before', () => {
    expect(answersCallStartingAt(history, t('2026-01-01T09:59:59.999Z'))).toBe(true);
    expect(answersCallStartingAt(history, t('2026-01-01T10:00:00Z'))).toBe(false);
    expect(answersCallStartingAt(history, t('2026-01-01T11:30:00Z'))).toBe(true);
    expect(answersCallStartingAt(history, t('2026-01-01T12:00:00Z'))).toBe(false);
  });

  it('answers before anything is known, and an agent never paused or deleted refuses nothing', () => {
    expect(answersCallStartingAt(history, t('2025-01-01T00:00:00Z'))).toBe(true);
    expect(answersCallStartingAt([], t('2026-01-01T10:30:00Z'))).toBe(true);
    expect(mayRefuseCalls([history[0], history[2]])).toBe(false);
    expect(mayRefuseCalls(history)).toBe(true);
  });
});
