import { describe, expect, it } from '@jest/globals';
import type { KnownAgent } from './agent-policy.rules.js';
import { judgeCall, type JudgedEvent } from './answering.rules.js';

const t = (hhmm: string) => `2025-06-01T${hhmm}:00.000Z`;
const ms = (hhmm: string) => Date.parse(t(hhmm));
/** Created 09:00, paused 10:00, resumed 11:00. */
const agent = {
  agent_id: 'agt_1', account_id: 'acc_1', name: 'A', voice_platform: 'p', recording_enabled: true, transcription_enabled: true,
  status: 'active', version: 3,
  history: [
    { version: 1, status: 'active', since_ms: ms('09:00') },
    { version: 2, status: 'paused', since_ms: ms('10:00') },
    { version: 3, status: 'active', since_ms: ms('11:00') },
  ],
} satisfies KnownAgent;
const ev = (type: string | undefined, hhmm: string, id?: string): JudgedEvent => ({ type, occurred_at: t(hhmm), id, agent });

describe('judgeCall', () => {
  it('(a) recorded: accepted, whatever the events', () => {
    expect(judgeCall({ recorded: true, refused: undefined, events: [ev('call.started', '10:30')] })).toEqual({ answered: true });
  });
  it('(b) refused before: refused, even after a resume', () => {
    expect(judgeCall({ recorded: false, refused: { agent_id: 'agt_1', status: 'paused' }, events: [ev('call.ended', '11:30')] }))
      .toEqual({ answered: false, agent_id: 'agt_1', status: 'paused', remembered: true });
  });
  it('(c) the earliest start decides, not the earliest event', () => {
    expect(judgeCall({ recorded: false, refused: undefined, events: [ev('call.progress', '09:59'), ev('call.started', '10:10')] }))
      .toEqual({ answered: false, agent_id: 'agt_1', status: 'paused', remembered: false, started_at: t('10:10') });
    expect(judgeCall({ recorded: false, refused: undefined, events: [ev('call.ended', '10:05'), ev('call.started', '09:50')] })).toEqual({ answered: true });
    expect(judgeCall({ recorded: false, refused: undefined, events: [ev('call.abandoned', '10:20'), ev('call.started', '11:30')] }))
      .toMatchObject({ answered: false, status: 'paused' });
    expect(judgeCall({ recorded: false, refused: undefined, events: [ev('call.started', '11:00')] })).toEqual({ answered: true });
  });
  it('(d) no start seen: accepted', () => {
    expect(judgeCall({ recorded: false, refused: undefined, events: [ev('call.ended', '10:05'), ev('call.transcript', '10:06')] })).toEqual({ answered: true });
  });
  it('untyped events are possible starts only when asked (the pre-check of a caller that sends no types)', () => {
    expect(judgeCall({ recorded: false, refused: undefined, events: [ev(undefined, '10:05')] })).toEqual({ answered: true });
    expect(judgeCall({ recorded: false, refused: undefined, events: [ev(undefined, '10:05')], untypedMayStart: true })).toMatchObject({ answered: false });
  });
});
