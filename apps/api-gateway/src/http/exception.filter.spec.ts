import { describe, expect, it } from '@jest/globals';
import type { ArgumentsHost } from '@nestjs/common';
import type { Logger } from 'pino';
import { GatewayExceptionFilter } from './exception.filter.js';

/** Runs the filter on `exception` and returns what it wrote and at which level it logged. */
function answer(exception: unknown) {
  const written: { status?: number; headers: Record<string, string>; body?: any } = { headers: {} };
  const res = {
    sent: false,
    raw: { headersSent: false },
    status(code: number) {
      written.status = code;
      return res;
    },
    header(name: string, value: string) {
      written.headers[name] = value;
      return res;
    },
    headers(values: Record<string, string>) {
      Object.assign(written.headers, values);
      return res;
    },
    type(value: string) {
      written.headers['Content-Type'] = value;
      return res;
    },
    send(body: string) {
      written.body = JSON.parse(body);
      return res;
    },
  };
  const req = { method: 'GET', path: '/v1/agents', requestId: 'req_1' };
  const logged: string[] = [];
  const logger = { warn: () => logged.push('warn'), error: () => logged.push('error') } as unknown as Logger;
  const host = { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ArgumentsHost;
  new GatewayExceptionFilter(logger).catch(exception, host);
  return { ...written, logged };
}

describe('GatewayExceptionFilter, failures of a dependency', () => {
  it.each([
    ['an unreachable database', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a dropped connection, wrapped by TypeORM', { message: 'query failed', driverError: { code: '08006' } }],
    ['a database out of disk space', Object.assign(new Error('could not extend file'), { code: '53100' })],
    ['a bare EPIPE (a write to a database socket the server closed)', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })],
  ])('answers %s with 503 service_unavailable and a Retry-After', (_what, exception) => {
    const { status, headers, body, logged } = answer(exception);
    expect(status).toBe(503);
    expect(headers['Retry-After']).toBe('1');
    expect(body).toMatchObject({ error: { code: 'service_unavailable' } });
    expect(logged).toEqual(['warn']);
  });

  it.each([
    ['a bug in our code', new TypeError('x is undefined')],
    ['a missing table', Object.assign(new Error('relation "gateway.api_keys" does not exist'), { code: '42P01' })],
  ])('answers %s with 500 internal_error and logs it as an error', (_what, exception) => {
    const { status, body, logged } = answer(exception);
    expect(status).toBe(500);
    expect(body).toMatchObject({ error: { code: 'internal_error' } });
    expect(logged).toEqual(['error']);
  });
});
