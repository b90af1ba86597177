import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Module, UseFilters, UseInterceptors } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import { ClientProxy, MessagePattern, NatsRecordBuilder, Payload, type CustomTransportStrategy } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { randomNamespace, testNatsUrl } from '@voice/testing';
import { firstValueFrom, lastValueFrom, timeout, toArray } from 'rxjs';
import { InProcessBus, InProcessClient, InProcessServer } from './in-process-transport.js';
import { createLogger, currentRequestId } from '../logging/logging.js';
import { NamespacedNatsClient, NamespacedNatsServer, serviceTransportOptions } from './nats.js';
import { RequestContextInterceptor } from '../logging/request-context.interceptor.js';
import { isProgressSignal, PROGRESS_INTERVAL_MS, ProgressInterceptor } from './rpc-progress.js';
import { fail, ServiceErrorFilter } from './rpc-errors.js';

const logger = createLogger('spec');

@Controller()
@UseFilters(new ServiceErrorFilter(logger))
@UseInterceptors(RequestContextInterceptor)
class EchoController {
  @MessagePattern('echo.hello')
  hello(@Payload() body: { name: string; at?: string }) {
    return { greeting: `hello ${body.name}`, request_id: currentRequestId(), when: new Date(body.at ?? 0) };
  }
  @MessagePattern('echo.reject')
  reject() {
    fail('duplicate_name', 'An agent named x already exists.', { field: 'name' });
  }
  @MessagePattern('echo.crash')
  crash() {
    throw new Error('secret internal detail');
  }
}

@Controller()
@UseFilters(new ServiceErrorFilter(logger))
@UseInterceptors(RequestContextInterceptor, ProgressInterceptor)
class SlowController {
  @MessagePattern('slow.hello')
  async hello(@Payload() body: { name: string; ms: number }) {
    await new Promise((resolve) => setTimeout(resolve, body.ms));
    return { greeting: `hello ${body.name}` };
  }
  @MessagePattern('slow.reject')
  async reject(@Payload() body: { ms: number }) {
    await new Promise((resolve) => setTimeout(resolve, body.ms));
    fail('duplicate_name', 'An agent named x already exists.', { field: 'name' });
  }
}
@Module({ controllers: [EchoController, SlowController] })
class EchoModule {}

/** What a caller of either transport uses. */
type RpcClient = Pick<ClientProxy, 'send' | 'connect' | 'close'>;

interface TransportPair {
  server: () => CustomTransportStrategy;
  client: () => RpcClient;
  otherClient: () => RpcClient;
}

function natsPair(): TransportPair {
  const namespace = randomNamespace();
  return {
    server: () => new NamespacedNatsServer(namespace, serviceTransportOptions('echo', testNatsUrl())),
    client: () => new NamespacedNatsClient(namespace, { servers: [testNatsUrl()] }),
    otherClient: () => new NamespacedNatsClient(randomNamespace(), { servers: [testNatsUrl()] }),
  };
}
function inProcessPair(): TransportPair {
  const bus = new InProcessBus();
  return {
    server: () => new InProcessServer(bus),
    client: () => new InProcessClient(bus),
    otherClient: () => new InProcessClient(new InProcessBus()),
  };
}

/** Both transports must behave the same for the same handlers: that is what lets the one-process mode stand in for NATS. */
describe.each([
  ['NATS (namespaced)', natsPair],
  ['in-process', inProcessPair],
])('request-reply over %s', (_name, makePair) => {
  const pair = makePair();
  let service: INestMicroservice;
  let client: RpcClient;
  let otherClient: RpcClient;

  beforeAll(async () => {
    service = await NestFactory.createMicroservice(EchoModule, { strategy: pair.server(), logger: false });
    await service.listen();
    client = pair.client();
    otherClient = pair.otherClient();
    await client.connect();
    await otherClient.connect();
  });
  afterAll(async () => {
    await client?.close();
    await otherClient?.close();
    await service?.close();
  });

  it('answers, JSON-encodes the reply, and carries the request id header into the handler', async () => {
    const h = natsHeaders();
    h.set('x-request-id', 'req-123');
    const record = new NatsRecordBuilder({ name: 'ada', at: '2026-01-02T03:04:05.000Z' }).setHeaders(h).build();
    const reply = await firstValueFrom(client.send('echo.hello', record).pipe(timeout(2000)));
    expect(reply).toEqual({ greeting: 'hello ada', request_id: 'req-123', when: '2026-01-02T03:04:05.000Z' });
  });

  it('delivers structured service errors intact', async () => {
    await expect(firstValueFrom(client.send('echo.reject', {}).pipe(timeout(2000)))).rejects.toEqual({
      code: 'duplicate_name',
      message: 'An agent named x already exists.',
      field: 'name',
    });
  });

  it('hides unexpected errors behind internal_error', async () => {
    await expect(firstValueFrom(client.send('echo.crash', {}).pipe(timeout(2000)))).rejects.toEqual({
      code: 'internal_error',
      message: 'An unexpected error occurred.',
    });
  });

  it('a progress-reporting handler signals when it takes the request up and every interval while it works, then answers last', async () => {
    const started = Date.now();
    const replies = await lastValueFrom(client.send('slow.hello', { name: 'ada', ms: 2.5 * PROGRESS_INTERVAL_MS }).pipe(toArray(), timeout(10_000)));
    expect(Date.now() - started).toBeGreaterThanOrEqual(2.5 * PROGRESS_INTERVAL_MS - 50);
    expect(replies.slice(0, -1).length).toBe(3);
    expect(replies.slice(0, -1).every(isProgressSignal)).toBe(true);
    expect(replies.at(-1)).toEqual({ greeting: 'hello ada' });
  });

  it('a progress-reporting handler that answers at once sends its one signal first; a failure after signals is still the error', async () => {
    await expect(lastValueFrom(client.send('slow.hello', { name: 'ada', ms: 0 }).pipe(toArray(), timeout(2000)))).resolves.toEqual([
      { $progress: true },
      { greeting: 'hello ada' },
    ]);
    const seen: unknown[] = [];
    await expect(
      new Promise((resolve, reject) => client.send('slow.reject', { ms: 1.5 * PROGRESS_INTERVAL_MS }).subscribe({ next: (v) => seen.push(v), error: reject, complete: () => resolve(undefined) })),
    ).rejects.toEqual({ code: 'duplicate_name', message: 'An agent named x already exists.', field: 'name' });
    expect(seen.length).toBe(2);
    expect(seen.every(isProgressSignal)).toBe(true);
  });

  it('does not reach a service on another bus or namespace', async () => {
    await expect(firstValueFrom(otherClient.send('echo.hello', { name: 'x' }).pipe(timeout(500)))).rejects.toBeDefined();
  });
});

describe('NATS client: one reply subscription for all requests', () => {
  const namespace = randomNamespace();
  let service: INestMicroservice;
  let client: NamespacedNatsClient;
  /** The client connection's live subscriptions (nats.js keeps them on its protocol handler). */
  const subscriptions = () =>
    (client as unknown as { natsClient: { protocol: { subscriptions: { size(): number } } } }).natsClient.protocol.subscriptions.size();

  beforeAll(async () => {
    service = await NestFactory.createMicroservice(EchoModule, { strategy: new NamespacedNatsServer(namespace, serviceTransportOptions('echo', testNatsUrl())), logger: false });
    await service.listen();
    client = new NamespacedNatsClient(namespace, { servers: [testNatsUrl()] });
    await client.connect();
  });
  afterAll(async () => {
    await client?.close();
    await service?.close();
  });

  it('routes 500 concurrent replies each to its own request, over a single subscription', async () => {
    const names = Array.from({ length: 500 }, (_, i) => `caller-${i}`);
    const replies = await Promise.all(names.map((name) => firstValueFrom(client.send<{ greeting: string }>('echo.hello', { name }).pipe(timeout(10_000)))));
    expect(replies.map((r) => r.greeting)).toEqual(names.map((name) => `hello ${name}`));
    expect(subscriptions()).toBe(1);
  });

  it('drops a reply that comes after its request timed out, and answers the next request', async () => {
    await expect(lastValueFrom(client.send('slow.hello', { name: 'late', ms: 300 }).pipe(timeout(50)))).rejects.toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await expect(firstValueFrom(client.send('echo.hello', { name: 'next' }).pipe(timeout(2000)))).resolves.toMatchObject({ greeting: 'hello next' });
    expect(subscriptions()).toBe(1);
  });

  it('subscribes again on a new connection after a close', async () => {
    await client.close();
    await client.connect();
    await expect(firstValueFrom(client.send('echo.hello', { name: 'again' }).pipe(timeout(2000)))).resolves.toMatchObject({ greeting: 'hello again' });
    expect(subscriptions()).toBe(1);
  });
});

describe('in-process transport: a message that cannot cross the wire', () => {
  it('fails that request with internal_error and keeps serving (it must not crash the one process)', async () => {
    const pair = inProcessPair();
    const service = await NestFactory.createMicroservice(EchoModule, { strategy: pair.server(), logger: false });
    await service.listen();
    const client = pair.client();
    try {
      let deep: unknown = 'leaf';
      for (let i = 0; i < 20_000; i++) deep = { deep };
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        await expect(firstValueFrom(client.send('echo.hello', { name: 'x', deep }).pipe(timeout(2000)))).rejects.toMatchObject({
          code: 'internal_error',
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
      expect(unhandled).toEqual([]);
      await expect(firstValueFrom(client.send('echo.hello', { name: 'ada' }).pipe(timeout(2000)))).resolves.toMatchObject({
        greeting: 'hello ada',
      });
    } finally {
      await service.close();
    }
  });
});
