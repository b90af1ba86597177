import { describe, expect, it } from '@jest/globals';
import { isUnavailableDependency } from './unavailable-dependency.js';

describe('isUnavailableDependency', () => {
  it.each([
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    [Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    [new Error('Connection terminated unexpectedly')],
    [new Error('timeout exceeded when trying to connect')],
    [{ message: 'query failed', driverError: { code: '08006' } }],
  ])('treats %p as an outage', (err) => {
    expect(isUnavailableDependency(err)).toBe(true);
  });

  it.each([
    [Object.assign(new Error('relation "gateway.api_keys" does not exist'), { code: '42P01' })],
    [{ message: 'duplicate key', driverError: { code: '23505' } }],
    [new TypeError('x is undefined')],
    ['a string'],
    [undefined],
  ])('treats %p as a bug', (err) => {
    expect(isUnavailableDependency(err)).toBe(false);
  });
});
