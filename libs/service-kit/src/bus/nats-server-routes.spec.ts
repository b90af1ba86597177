import { describe, expect, it } from '@jest/globals';
import { NamespacedNatsServer } from './nats.js';

/** The route lookup alone (no connection): what getHandlerByPattern is given for an incoming subject. */
class RouteOf extends NamespacedNatsServer {
  route(subject: string): string {
    return this.getRouteFromPattern(subject);
  }
}

describe('NamespacedNatsServer routes', () => {
  const server = new RouteOf('ns', { servers: 'nats://127.0.0.1:4222' } as never);

  it('a plain subject is its own route, namespaced or not', () => {
    expect(server.route('ns.agents.get')).toBe('ns.agents.get');
    expect(server.route('agents.get')).toBe('agents.get');
  });

  it('a JSON pattern is still routed as Nest routes it (keys sorted)', () => {
    expect(server.route('{"role":"agents","cmd":"get"}')).toBe('{"cmd":"get","role":"agents"}');
  });

  it('a subject is routed without throwing inside (no SyntaxError built per message)', () => {
    const parse = JSON.parse;
    let parses = 0;
    JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      parses += 1;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      server.route('ns.conversations.list');
    } finally {
      JSON.parse = parse;
    }
    expect(parses).toBe(0);
  });
});
