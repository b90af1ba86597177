import { describe, expect, it } from '@jest/globals';
import type { ArgumentsHost } from '@nestjs/common';
import pino from 'pino';
import { firstValueFrom } from 'rxjs';
import { ServiceErrorFilter, ServiceFailure } from './rpc-errors.js';

const filter = new ServiceErrorFilter(pino({ level: 'silent' }));

async function replyTo(exception: unknown): Promise<unknown> {
  return firstValueFrom(filter.catch(exception, {} as ArgumentsHost)).catch((reply: unknown) => reply);
}

function pgError(code: string, message = 'database said no'): Error {
  return Object.assign(new Error(message), { code });
}

describe('ServiceErrorFilter', () => {
  it('passes a structured service error through unchanged', async () => {
    expect(await replyTo(new ServiceFailure({ code: 'not_found', message: 'No agent with this id exists.' }))).toEqual({
      code: 'not_found',
      message: 'No agent with this id exists.',
    });
  });

  it.each([
    ['a refused connection', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['an administrator terminating the connection', pgError('57P01', 'terminating connection due to administrator command')],
    ['a statement timeout', pgError('57014', 'canceling statement due to statement timeout')],
    ['a full disk', pgError('53100', 'could not extend file')],
  ])('answers %s as service_unavailable, as the gateway does', async (_name, err) => {
    expect(await replyTo(err)).toMatchObject({ code: 'service_unavailable' });
  });

  it.each([
    ['a bug in our code', new TypeError('x is undefined')],
    ['a missing table', pgError('42P01', 'relation does not exist')],
  ])('answers %s as internal_error without its details', async (_name, err) => {
    expect(await replyTo(err)).toEqual({ code: 'internal_error', message: 'An unexpected error occurred.' });
  });
});
