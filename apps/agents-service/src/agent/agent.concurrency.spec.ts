import { describe, expect, it } from '@jest/globals';
import { ServiceFailure, WrongExpectedVersion } from '@voice/service-kit';
import { AgentRuleViolation, type AgentState } from './agent.js';
import { refuseLostUniqueKeyRace, withOptimisticConcurrency } from './agent.concurrency.js';

const detailOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    if (err instanceof ServiceFailure) return err.detail;
    throw err;
  }
  throw new Error('expected a failure');
};

describe('withOptimisticConcurrency', () => {
  it('retries a lost race once when no version was expected', async () => {
    let calls = 0;
    const result = await withOptimisticConcurrency(undefined, async () => {
      calls += 1;
      if (calls === 1) throw new WrongExpectedVersion('s', 1);
      return 'done';
    });
    expect([result, calls]).toEqual(['done', 2]);
  });

  it('gives up with concurrent_modification after the retry also loses', async () => {
    let calls = 0;
    const detail = await detailOf(
      withOptimisticConcurrency(undefined, async () => {
        calls += 1;
        throw new WrongExpectedVersion('s', calls);
      }),
    );
    expect([detail.code, calls]).toEqual(['concurrent_modification', 2]);
  });

  it('never retries when the caller named a version: precondition_failed', async () => {
    let calls = 0;
    const detail = await detailOf(
      withOptimisticConcurrency(3, async () => {
        calls += 1;
        throw new WrongExpectedVersion('s', 3);
      }),
    );
    expect([detail.code, calls]).toEqual(['precondition_failed', 1]);
  });

  it('passes other errors through untouched', async () => {
    const boom = new Error('boom');
    await expect(withOptimisticConcurrency(undefined, async () => Promise.reject(boom))).rejects.toBe(boom);
  });
});

describe('refuseLostUniqueKeyRace', () => {
  const attempted = { name: 'Sales', phone_number: '+14155550123' } as AgentState;
  const uniqueViolation = (constraint: string) => Object.assign(new Error('duplicate key'), { driverError: { code: '23505', constraint } });
  const refusalOf = (err: unknown, ...agent: [AgentState | undefined] | []) => {
    try {
      refuseLostUniqueKeyRace(err, agent.length ? agent[0] : attempted);
    } catch (refusal) {
      if (refusal instanceof AgentRuleViolation) return refusal.detail;
      throw refusal;
    }
    return undefined;
  };

  it('names the rule a unique index holds: the name and the phone number', () => {
    expect(refusalOf(uniqueViolation('agents_account_name_key'))).toMatchObject({ code: 'duplicate_name', field: 'name' });
    expect(refusalOf(uniqueViolation('agents_phone_number_key'))).toMatchObject({ code: 'phone_number_in_use', field: 'phone_number' });
  });

  it('leaves every other error, and a write that was never attempted, to its caller', () => {
    expect(refusalOf(uniqueViolation('events_event_id_key'))).toBeUndefined();
    expect(refusalOf(new Error('connection reset'))).toBeUndefined();
    expect(refusalOf(uniqueViolation('agents_account_name_key'), undefined)).toBeUndefined();
  });
});
