import { describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { QueryFailedError } from 'typeorm';
import { chooseLogFormat, createLogger, prettyLines, quietable, quietInfoLogs, serializeError } from './logging.js';

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

describe('chooseLogFormat', () => {
  it.each([
    [undefined, true, 'pretty'],
    [undefined, false, 'json'],
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['json', true, 'json'],
    ['json', false, 'json'],
    ['pretty', true, 'pretty'],
    ['pretty', false, 'pretty'],
    [' Pretty ', false, 'pretty'],
    ['JSON', true, 'json'],
    ['', true, 'pretty'],
  ])('LOG_FORMAT=%j with stdout a terminal: %s → %s', (setting, isTTY, expected) => {
    expect(chooseLogFormat({ LOG_FORMAT: setting }, isTTY)).toBe(expected);
  });
});

describe('human-readable lines', () => {
  function capturedPretty() {
    const lines: string[] = [];
    const logger = createLogger('spec', prettyLines({ write: (line: string) => void lines.push(line) }));
    logger.level = 'info';
    return { lines, logger };
  }

  it('print the level, the service and the message on one line, the fields after it', () => {
    const { lines, logger } = capturedPretty();
    logger.info({ request_id: 'req-1', status: 200 }, 'request completed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: spec: request completed \{"request_id":"req-1","status":200\}\n$/);
    expect(() => JSON.parse(lines[0])).toThrow();
  });

  it('leave out what the JSON leaves out: no statement, parameters or payload of a failed query', () => {
    const { lines, logger } = capturedPretty();
    logger.error({ err: queryFailed() }, 'batch handler failed');
    const [line] = lines;
    expect(line).toContain('ERROR: spec: batch handler failed');
    expect(line).toContain('duplicate key value violates unique constraint');
    expect(line).toContain('events_pkey');
    expect(line).not.toContain(CALLER);
    expect(line).not.toContain(TRANSCRIPT);
    expect(line).not.toContain('INSERT INTO');
    expect(line).not.toMatch(/"(parameters|query|detail|where)"/);
  });
});

describe('quietInfoLogs', () => {
  it('leaves out info lines while held and lets warnings and errors through; the release (once) restores them', () => {
    const lines: string[] = [];
    const logger = createLogger('spec', quietable({ write: (line: string) => void lines.push(line) }));
    logger.level = 'info';
    const child = logger.child({ context: 'child' });
    const messages = () => lines.map((line) => JSON.parse(line).msg);

    const release = quietInfoLogs();
    const otherHold = quietInfoLogs();
    logger.info('starting');
    child.info('route mapped');
    logger.warn('slow start');
    child.error('failed once');
    expect(messages()).toEqual(['slow start', 'failed once']);

    release();
    release(); // a second call must not release the other hold
    logger.info('still starting');
    expect(messages()).toEqual(['slow start', 'failed once']);

    otherHold();
    logger.info('ready');
    child.info('request completed');
    expect(messages()).toEqual(['slow start', 'failed once', 'ready', 'request completed']);
  });
});
