import { describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { QueryFailedError } from 'typeorm';
import { createLogger, serializeError } from './logging.js';

const CALLER = '+14155550123';
const TRANSCRIPT = 'my card number is 4111 1111 1111 1111';

/** What TypeORM throws when PostgreSQL refuses an insert: the driver's error plus the statement and its parameters. */
function queryFailed(): QueryFailedError {
  const driverError = new pg.DatabaseError('duplicate key value violates unique constraint "events_pkey"', 120, 'error');
  Object.assign(driverError, {
    severity: 'ERROR',
    code: '23505',
    detail: `Key (stream_id, caller)=(conv-1, ${CALLER}) already exists.`,
    where: `SQL statement "INSERT INTO events VALUES ('${TRANSCRIPT}')"`,
    schema: 'conversations',
    table: 'events',
    column: 'stream_id',
    constraint: 'events_pkey',
    routine: '_bt_check_unique',
    // Other drivers keep the statement's values on their error too.
    parameters: [CALLER, TRANSCRIPT],
  });
  const payload = { id: 'evt-1', data: { caller_number: CALLER, transcript: TRANSCRIPT } };
  return new QueryFailedError('INSERT INTO conversations.events (stream_id, payload) VALUES ($1, $2)', ['conv-1', JSON.stringify(payload), payload], driverError);
}

function captured() {
  const lines: string[] = [];
  const logger = createLogger('spec', { write: (line: string) => void lines.push(line) });
  logger.level = 'info'; // the test runner silences logs by default
  return { lines, logger };
}

describe('createLogger error serialization', () => {
  it('logs what a QueryFailedError is, never the statement or its parameters', () => {
    const { lines, logger } = captured();
    logger.error({ err: queryFailed(), stream: 'S' }, 'batch handler failed');
    logger.error(queryFailed(), 'logged as the first argument');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).not.toContain(CALLER);
      expect(line).not.toContain(TRANSCRIPT);
      expect(line).not.toContain('INSERT INTO');
      expect(line).not.toMatch(/"(parameters|query|detail|where)"/);
      const { err } = JSON.parse(line);
      expect(err).toMatchObject({
        type: 'QueryFailedError',
        message: 'duplicate key value violates unique constraint "events_pkey"',
        code: '23505',
        severity: 'ERROR',
        constraint: 'events_pkey',
        schema: 'conversations',
        table: 'events',
        column: 'stream_id',
        stack: expect.stringContaining('QueryFailedError: duplicate key value'),
        driverError: expect.objectContaining({ code: '23505', constraint: 'events_pkey' }),
      });
    }
  });

  it('keeps the useful fields of other errors: node system errors, causes, aggregated errors', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect', address: '127.0.0.1', port: 5432 });
    const wrapped = new Error('could not record', { cause: new AggregateError([refused], 'all attempts failed') });
    const serialized = serializeError(wrapped) as Record<string, any>;
    expect(serialized).toMatchObject({ type: 'Error', message: 'could not record', stack: expect.any(String) });
    expect(serialized.cause).toMatchObject({ type: 'AggregateError', message: 'all attempts failed' });
    expect(serialized.cause.errors).toEqual([expect.objectContaining({ code: 'ECONNREFUSED', errno: -111, syscall: 'connect', port: 5432 })]);
  });

  it('survives a cycle and leaves non-errors alone', () => {
    const a = new Error('a');
    a.cause = a;
    expect(() => JSON.stringify(serializeError(a))).not.toThrow();
    expect(serializeError('plain text')).toBe('plain text');
    expect(serializeError(undefined)).toBeUndefined();
  });
});
