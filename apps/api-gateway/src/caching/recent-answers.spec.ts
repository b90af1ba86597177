import { describe, expect, it } from '@jest/globals';
import { RecentAnswers } from './recent-answers.js';

describe('RecentAnswers', () => {
  it('gives a value with its age, and forgets the oldest beyond its capacity', () => {
    const answers = new RecentAnswers<string>(2);
    answers.remember('a', 'A', 1_000);
    answers.remember('b', 'B', 1_500);
    expect(answers.get('a', 1_200)).toEqual({ value: 'A', ageMs: 200 });
    answers.remember('a', 'A2', 2_000); // remembered again: now the newest
    answers.remember('c', 'C', 2_100);
    expect(answers.get('b')).toBeUndefined();
    expect(answers.get('a', 2_100)).toEqual({ value: 'A2', ageMs: 100 });
    answers.forget('a');
    expect(answers.get('a')).toBeUndefined();
    expect(answers.get('c', 2_100)?.value).toBe('C');
  });

  it('forgets every value a predicate accepts and keeps the others', () => {
    const answers = new RecentAnswers<{ account: string }>(10);
    answers.remember('k1', { account: 'a' });
    answers.remember('k2', { account: 'b' });
    answers.remember('k3', { account: 'a' });
    answers.forgetWhere((v) => v.account === 'a');
    expect([answers.get('k1'), answers.get('k2')?.value, answers.get('k3')]).toEqual([undefined, { account: 'b' }, undefined]);
  });
});
