import { describe, expect, it } from '@jest/globals';
import { errors } from '@nats-io/transport-node';
import { EMPTY, EmptyError, of, throwError } from 'rxjs';
import { fixedWait } from './reply-wait.rules.js';
import { classifyTransportError, watchReplies } from './service-client.js';

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

describe('watchReplies', () => {
  const wait = fixedWait(5_000);

  it('answers with the first value that is not a progress signal, though the reply stream completes after it', async () => {
    const watch = watchReplies<string>(of({ $progress: true }, 'the answer'), wait);
    await expect(watch.answer).resolves.toBe('the answer');
  });

  it('a reply stream that completes without an answer fails the request (EmptyError)', async () => {
    const watch = watchReplies<string>(EMPTY, wait);
    await expect(watch.answer).rejects.toBeInstanceOf(EmptyError);
  });

  it('only progress signals, then completion, is no answer either', async () => {
    const watch = watchReplies<string>(of({ $progress: true }, { $progress: true }), wait);
    await expect(watch.answer).rejects.toBeInstanceOf(EmptyError);
  });

  it('the service’s error is the request’s', async () => {
    const failure = new Error('refused');
    const watch = watchReplies<string>(throwError(() => failure), wait);
    await expect(watch.answer).rejects.toBe(failure);
  });
});
