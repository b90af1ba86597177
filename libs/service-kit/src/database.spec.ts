import { describe, expect, it } from '@jest/globals';
import { isDatabaseUnavailable } from './database.js';

describe('isDatabaseUnavailable (unit: error shapes; database.int-spec checks real outages)', () => {
  it.each([
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    [Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    [new Error('Connection terminated unexpectedly')],
    [new Error('timeout exceeded when trying to connect')],
    [{ message: 'query failed', driverError: { code: '08006' } }],
  ])('treats %p as an outage', (err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    [Object.assign(new Error('relation "gateway.api_keys" does not exist'), { code: '42P01' })],
    [{ message: 'duplicate key', driverError: { code: '23505' } }],
    [new TypeError('x is undefined')],
    ['a string'],
    [undefined],
  ])('treats %p as a bug', (err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });
});
