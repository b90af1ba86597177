import { describe, expect, it } from '@jest/globals';
import { natsConnectionOptions } from './nats-connection.js';

describe('natsConnectionOptions', () => {
  it('takes user and password out of the URL, decoded, and gives the user an inbox prefix of its own', () => {
    expect(natsConnectionOptions('nats://gateway:s%40cret%2F1@nats:4222')).toEqual({
      servers: ['nats://nats:4222'], user: 'gateway', pass: 's@cret/1', inboxPrefix: '_INBOX_gateway',
    });
  });

  it('keeps every server of a list, without credentials; the first credentials win', () => {
    expect(natsConnectionOptions('nats://a:1@n1:4222, tls://b:2@n2:4222')).toEqual({
      servers: ['nats://n1:4222', 'tls://n2:4222'], user: 'a', pass: '1', inboxPrefix: '_INBOX_a',
    });
  });

  it('leaves a URL without credentials as it is: no user, the default inboxes', () => {
    expect(natsConnectionOptions('nats://127.0.0.1:4222')).toEqual({ servers: ['nats://127.0.0.1:4222'] });
  });

  it('gives no inbox prefix for a user name that is not one subject token', () => {
    expect(natsConnectionOptions('nats://svc.one:pw@nats:4222')).toEqual({ servers: ['nats://nats:4222'], user: 'svc.one', pass: 'pw' });
  });
});
