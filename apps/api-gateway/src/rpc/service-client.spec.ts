import { describe, expect, it } from '@jest/globals';
import { errors } from '@nats-io/transport-node';
import { classifyTransportError } from './service-client.js';

describe('classifyTransportError', () => {
  it.each([
    [new errors.ClosedConnectionError()],
    [new errors.NoRespondersError('agents.create')],
    [new errors.RequestError('no responders')],
    [new Error('Connection closed')],
    ['Error: Connection lost. Trying to reconnect...'],
    [new Error('Empty response. There are no subscribers listening to that message ("agents.create")')],
  ])('an unreachable bus or service (%p) is an outage: 503', (err) => {
    expect(classifyTransportError(err)).toBe('unavailable');
  });

  it('a payload over the bus limit is the client’s: 413', () => {
    expect(classifyTransportError(errors.InvalidArgumentError.format('payload', 'max_payload size exceeded'))).toBe('too_large');
  });

  it.each([[new RangeError('Maximum call stack size exceeded')], [new TypeError('x is undefined')], [{ weird: true }], ['text']])(
    'anything else (%p) is our bug: 500, not a retry-able outage',
    (err) => {
      expect(classifyTransportError(err)).toBe('other');
    },
  );
});
