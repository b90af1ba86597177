import { describe, expect, it } from '@jest/globals';
import { formatLsn, lagOf, parseLsn, readPoolFor, replicaStateOf, transitionMessage, type ReplicaObservation } from './read-routing.rules.js';

const lsn = (text: string) => parseLsn(text)!;
const caughtUp: ReplicaObservation = { reachable: true, inRecovery: true, replayLsn: lsn('0/3000100'), primaryLsn: lsn('0/3000100'), sinceLastReplayMs: 60_000 };

describe('LSNs', () => {
  it('parse as PostgreSQL prints them and compare across the 32-bit boundary', () => {
    expect(lsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(lsn('1/0') > lsn('0/FFFFFFFF')).toBe(true);
    expect(formatLsn(lsn('16/B374D848'))).toBe('16/B374D848');
    expect(parseLsn(null)).toBeUndefined();
    expect(parseLsn('16-B374')).toBeUndefined();
  });
});

describe('replica lag and state', () => {
  it('a replica that has replayed everything is not late, however old its last replayed transaction (an idle primary)', () => {
    expect(lagOf(caughtUp)).toEqual({ bytes: 0, ms: 0 });
    expect(replicaStateOf(caughtUp, 1_000)).toBe('ok');
  });

  it('a replica behind the primary is as late as its last replayed transaction, and lagging past the bound', () => {
    const behind = { ...caughtUp, primaryLsn: lsn('0/3000500'), sinceLastReplayMs: 1_500.4 };
    expect(lagOf(behind)).toEqual({ bytes: 0x400, ms: 1_500 });
    expect(replicaStateOf(behind, 2_000)).toBe('ok');
    expect(replicaStateOf(behind, 1_000)).toBe('lagging');
  });

  it('behind with no transaction replayed yet counts as infinitely late', () => {
    expect(replicaStateOf({ ...caughtUp, primaryLsn: lsn('0/3000500'), sinceLastReplayMs: undefined }, 60_000)).toBe('lagging');
  });

  it('unreachable when it does not answer, is not a standby (promoted, or the primary itself), or has no replay position', () => {
    expect(replicaStateOf(undefined, 1_000)).toBe('unreachable');
    expect(replicaStateOf({ reachable: false }, 1_000)).toBe('unreachable');
    expect(replicaStateOf({ ...caughtUp, inRecovery: false }, 1_000)).toBe('unreachable');
    expect(replicaStateOf({ ...caughtUp, replayLsn: undefined }, 1_000)).toBe('unreachable');
  });
});

describe('which pool serves a read', () => {
  const replayLsn = lsn('0/5000000');

  it('the replica when it is ok and the reader has no write it has not replayed', () => {
    expect(readPoolFor({ state: 'ok', replayLsn })).toBe('replica');
    expect(readPoolFor({ state: 'ok', replayLsn, accountWriteLsn: lsn('0/5000000') })).toBe('replica');
    expect(readPoolFor({ state: 'ok', replayLsn, accountWriteLsn: lsn('0/4FFFFFF') })).toBe('replica');
  });

  it("the primary while the replica has not replayed the account's own latest write", () => {
    expect(readPoolFor({ state: 'ok', replayLsn, accountWriteLsn: lsn('0/5000001') })).toBe('primary');
  });

  it('the primary for everyone while the shared mark (too many accounts to keep one by one) is ahead of the replica', () => {
    expect(readPoolFor({ state: 'ok', replayLsn, everyoneWriteLsn: lsn('0/6000000') })).toBe('primary');
    expect(readPoolFor({ state: 'ok', replayLsn, everyoneWriteLsn: lsn('0/4000000') })).toBe('replica');
  });

  it('the primary when there is no replica, or it is lagging or unreachable, or its position is unknown', () => {
    expect(readPoolFor({ state: 'absent' })).toBe('primary');
    expect(readPoolFor({ state: 'lagging', replayLsn })).toBe('primary');
    expect(readPoolFor({ state: 'unreachable', replayLsn })).toBe('primary');
    expect(readPoolFor({ state: 'ok' })).toBe('primary');
  });
});

describe('log lines', () => {
  it('one per change of state, none while it stays', () => {
    expect(transitionMessage(undefined, 'ok', { bytes: 0, ms: 0 }, 5_000)).toBe('read replica serving reads');
    expect(transitionMessage('ok', 'ok', { bytes: 0, ms: 0 }, 5_000)).toBeUndefined();
    expect(transitionMessage('ok', 'lagging', { bytes: 10, ms: 7_000 }, 5_000)).toBe('read replica is 7000 ms behind (bound 5000 ms): reads go to the primary');
    expect(transitionMessage('lagging', 'unreachable', undefined, 5_000)).toMatch(/unreachable/);
    expect(transitionMessage('unreachable', 'ok', { bytes: 0, ms: 0 }, 5_000)).toBe('read replica serving reads again');
  });
});
