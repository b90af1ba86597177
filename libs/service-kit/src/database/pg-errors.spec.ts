import { describe, expect, it } from '@jest/globals';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import {
  classifyFailure, CONNECTION_LOST_CODES, isBrokenPipe, isDatabaseFailure, isDatabaseUnavailable, isDataFailure, isTransientFailure, sqlStateOf,
  type FailureClass,
} from './pg-errors.js';

/** A pg `DatabaseError` as the driver throws it: the SQLSTATE in `code`. */
const pgError = (code: string, message = 'simulated') => Object.assign(new Error(message), { code });
/** TypeORM's QueryFailedError: the pg error in `driverError`. */
const wrapped = (code: string, message = 'query failed') => ({ message, driverError: { code, message } });
const nodeError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

/**
 * Every case of the classification (pg-errors.int-spec checks that real PostgreSQL and
 * driver errors have these shapes). `unavailable`: whether it is also a database that
 * cannot be reached right now (answered with 503 by the API).
 */
const cases: Array<[string, unknown, FailureClass, { unavailable: boolean }]> = [
  ['connection refused', nodeError('ECONNREFUSED'), 'outage', { unavailable: true }],
  ['connection reset', nodeError('ECONNRESET'), 'outage', { unavailable: true }],
  ['host unknown', nodeError('ENOTFOUND'), 'outage', { unavailable: true }],
  ['name resolution failing for now', nodeError('EAI_AGAIN'), 'outage', { unavailable: true }],
  ['network unreachable', nodeError('ENETUNREACH'), 'outage', { unavailable: true }],
  ['administrator shutdown (57P01)', pgError('57P01', 'terminating connection due to administrator command'), 'outage', { unavailable: true }],
  ['connection terminated', new Error('Connection terminated unexpectedly'), 'outage', { unavailable: true }],
  ['no free connection in the pool', new Error('timeout exceeded when trying to connect'), 'outage', { unavailable: true }],
  [
    'a transaction whose connection was terminated (TypeORM QueryRunnerAlreadyReleasedError)',
    new QueryRunnerAlreadyReleasedError(),
    'outage',
    { unavailable: true },
  ],
  ['the same through a transaction’s EntityManager', new QueryRunnerProviderAlreadyReleasedError(), 'outage', { unavailable: true }],
  ['connection failure (08006), wrapped', wrapped('08006'), 'outage', { unavailable: true }],
  ['connection failure (08006)', pgError('08006'), 'outage', { unavailable: true }],
  ['too many connections (53300)', pgError('53300'), 'outage', { unavailable: true }],
  ['disk full (53100)', pgError('53100'), 'outage', { unavailable: false }],
  ['out of memory (53200)', pgError('53200'), 'outage', { unavailable: false }],
  ['configuration limit exceeded (53400)', pgError('53400'), 'outage', { unavailable: false }],
  ['could not access a file (58030)', pgError('58030'), 'outage', { unavailable: false }],
  ['system error (58000)', pgError('58000'), 'outage', { unavailable: false }],
  ['read-only transaction after a failover (25006)', pgError('25006'), 'outage', { unavailable: false }],
  ['statement timeout (57014)', pgError('57014'), 'outage', { unavailable: false }],
  ['database dropped (57P04)', pgError('57P04'), 'outage', { unavailable: false }],
  ['serialization failure (40001)', pgError('40001'), 'lost_race', { unavailable: false }],
  ['deadlock (40P01)', pgError('40P01'), 'lost_race', { unavailable: false }],
  ['lock not available (55P03)', pgError('55P03'), 'lost_race', { unavailable: false }],
  ['bad encoding (22021)', pgError('22021'), 'data_fault', { unavailable: false }],
  ['invalid text representation (22P02)', pgError('22P02'), 'data_fault', { unavailable: false }],
  ['value too long (22001)', pgError('22001'), 'data_fault', { unavailable: false }],
  ['unique violation (23505)', pgError('23505'), 'data_fault', { unavailable: false }],
  ['unique violation (23505), wrapped', wrapped('23505', 'duplicate key'), 'data_fault', { unavailable: false }],
  ['not-null violation (23502)', pgError('23502'), 'data_fault', { unavailable: false }],
  ['program limit exceeded: row too big (54000)', pgError('54000'), 'data_fault', { unavailable: false }],
  ['statement too complex (54001)', pgError('54001'), 'data_fault', { unavailable: false }],
  ['raised by a trigger (P0001)', pgError('P0001'), 'data_fault', { unavailable: false }],
  ['failed PL/pgSQL assertion (P0004)', pgError('P0004'), 'data_fault', { unavailable: false }],
  ['internal error (XX000)', pgError('XX000'), 'defect', { unavailable: false }],
  ['missing table (42P01)', pgError('42P01', 'relation "gateway.api_keys" does not exist'), 'defect', { unavailable: false }],
  ['permission denied (42501)', pgError('42501'), 'defect', { unavailable: false }],
  ['bare EPIPE', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), 'defect', { unavailable: false }],
  ['a bug in our code', new TypeError('x is undefined'), 'defect', { unavailable: false }],
  ['a thrown string', 'a string', 'defect', { unavailable: false }],
  ['undefined', undefined, 'defect', { unavailable: false }],
];

describe('classifyFailure', () => {
  it.each(cases)('%s is %s', (_what, err, failure, { unavailable }) => {
    expect(classifyFailure(err)).toBe(failure);
    expect(isDatabaseUnavailable(err)).toBe(unavailable);
    expect(isTransientFailure(err)).toBe(failure === 'outage' || failure === 'lost_race');
    expect(isDataFailure(err)).toBe(failure === 'data_fault');
  });
});

describe('sqlStateOf', () => {
  it('reads the SQLSTATE of a pg error, bare or wrapped by TypeORM', () => {
    expect(sqlStateOf(pgError('22P02'))).toBe('22P02');
    expect(sqlStateOf(wrapped('40P01'))).toBe('40P01');
  });

  it('is undefined for Node error codes and errors without a code', () => {
    expect(sqlStateOf(nodeError('ECONNREFUSED'))).toBeUndefined();
    expect(sqlStateOf(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBeUndefined();
    expect(sqlStateOf(new TypeError('x is undefined'))).toBeUndefined();
    expect(sqlStateOf(null)).toBeUndefined();
  });
});

describe('isDatabaseFailure', () => {
  it('tells the database and its connection from our own code', () => {
    expect(isDatabaseFailure(pgError('42P01'))).toBe(true);
    expect(isDatabaseFailure(nodeError('ECONNREFUSED'))).toBe(true);
    expect(isDatabaseFailure(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseFailure(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(false);
  });
});

describe('isBrokenPipe', () => {
  it('is true for a bare EPIPE only', () => {
    expect(isBrokenPipe(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(true);
    expect(isBrokenPipe(nodeError('ECONNRESET'))).toBe(false);
    expect(isBrokenPipe(undefined)).toBe(false);
  });
});

describe('CONNECTION_LOST_CODES', () => {
  it('is the list the operator CLI (a plain script that runs without a build) mirrors', async () => {
    const cli = resolve(fileURLToPath(import.meta.url), '../../../../../scripts/cli.mjs');
    const { CONNECTION_LOST_CODES: mirrored } = (await import(pathToFileURL(cli).href)) as { CONNECTION_LOST_CODES: ReadonlySet<string> };
    expect([...mirrored].sort()).toEqual([...CONNECTION_LOST_CODES].sort());
  });
});
