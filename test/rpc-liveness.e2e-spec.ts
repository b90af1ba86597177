/**
 * Agent writes wait for the platform sync, which may take up to 10 s. Their handlers report progress, so the
 * gateway tells a slow but alive service (waited for, up to RPC_TIMEOUT_MS + 10 s) from a dead one (503 about
 * 2 s after its last sign of life).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { PROGRESS_SILENCE_MS } from '../apps/api-gateway/src/rpc/reply-wait.rules.js';
import { apiClient } from './support/http.js';
import { configureIntegrations } from './support/platforms.js';
import { pollUntil } from './support/poll.js';
import { startLocalSystem, startSystem, type LocalSystem, type RunningSystem } from './support/system.js';

const rpcTimeoutMs = 2000;
/** Each platform call of the sync answers this late: a create (number bought, agent created) outlasts RPC_TIMEOUT_MS. */
const platformDelayMs = 1_500;
/**
 * The deadline of one platform call: the production default (5 s), not the tests' 2 s, which a 1.5 s answer overran
 * on a loaded machine (the call retried, the create answered with platform_sync pending after its 8 s).
 */
const platformCallTimeoutMs = 5_000;

describe('agent writes over NATS: progress signals keep a slow sync alive, their absence ends a dead one', () => {
  let system: RunningSystem;

  beforeAll(async () => {
    system = await startSystem({ rpcTimeoutMs, platformCallTimeoutMs });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  it('a create slower than RPC_TIMEOUT_MS (a slow platform) is answered 201 synced, not 503', async () => {
    const account = await system.createAccount({ voice_platforms: ['platform_a'] });
    system.platforms.simulators.platformA.faults.delay(platformDelayMs);
    try {
      const started = Date.now();
      const res = await account.api.post('/v1/agents', { name: 'Slow desk', voice_platform: 'platform_a' });
      const elapsed = Date.now() - started;
      expect(res.status).toBe(201);
      expect(res.body.data.platform_sync.state).toBe('synced');
      // Longer than the base timeout and than one silence allowance: only the progress signals kept it waiting.
      expect(elapsed).toBeGreaterThan(rpcTimeoutMs + PROGRESS_SILENCE_MS);
    } finally {
      system.platforms.simulators.platformA.faults.clear('delay');
    }
  });

  describe('agents-service replaced by a responder that signals, then goes silent as a killed process would', () => {
    let nc: NatsConnection;
    let apiKey: string;

    beforeAll(async () => {
      apiKey = (await system.createAccount({ voice_platforms: ['platform_a'] })).api_key;
      await system.stopService('agents');
      nc = await connect({ servers: system.natsUrl });
    });
    afterAll(async () => {
      await nc?.close();
    });

    /** Subscribes like a replica of agents-service; `handle` gets each create with helpers speaking Nest's wire format. */
    async function respondToCreates(handle: (reply: { progress(): void; answer(body: unknown): void }) => void) {
      const sub = nc.subscribe(`${system.namespace}.agents.create`, {
        queue: 'agents-service',
        callback: (_err, msg: Msg) => {
          const { id } = msg.json<{ id: string }>();
          handle({
            progress: () => msg.respond(JSON.stringify({ id, response: { $progress: true } })),
            answer: (body) => msg.respond(JSON.stringify({ id, response: body, isDisposed: true })),
          });
        },
      });
      await nc.flush();
      return sub;
    }

    it('signals that stop (the process died) → 503 service_unavailable about 2 s after the last one, not after the whole allowance', async () => {
      let lastSignalAt = 0;
      const timers: NodeJS.Timeout[] = [];
      const sub = await respondToCreates((reply) => {
        // Alive for 3.5 s (signals at 1, 2, 3 s), then never heard of again.
        for (const at of [1_000, 2_000, 3_000]) timers.push(setTimeout(() => ((lastSignalAt = Date.now()), reply.progress()), at));
      });
      try {
        const started = Date.now();
        const res = await apiClient(system.baseUrl, apiKey).post('/v1/agents', { name: 'Doomed desk', voice_platform: 'platform_a' });
        const answeredAt = Date.now();
        expect(res.status).toBe(503);
        expect(res.body.error).toMatchObject({ code: 'service_unavailable', request_id: res.headers.get('x-request-id') });
        expect(res.body.error.message).toMatch(/stopped reporting progress/);
        // Past the base timeout (the signals kept it waiting) …
        expect(answeredAt - started).toBeGreaterThan(rpcTimeoutMs + 500);
        // … and ended by the silence after the last one, far before RPC_TIMEOUT_MS + 10 s.
        expect(answeredAt - lastSignalAt).toBeGreaterThanOrEqual(PROGRESS_SILENCE_MS - 50);
        expect(answeredAt - lastSignalAt).toBeLessThan(PROGRESS_SILENCE_MS + 1_000);
      } finally {
        timers.forEach(clearTimeout);
        sub.unsubscribe();
      }
    });

    it('with an Idempotency-Key, a write whose service went silent releases the key: the retry runs again, no 409 for the late-reply wait', async () => {
      const timers: NodeJS.Timeout[] = [];
      const sub = await respondToCreates((reply) => {
        reply.progress();
        timers.push(setTimeout(() => reply.progress(), 1_000));
      });
      const api = apiClient(system.baseUrl, apiKey);
      const key = { 'Idempotency-Key': `liveness-${Date.now()}` };
      try {
        const first = await api.post('/v1/agents', { name: 'Keyed desk', voice_platform: 'platform_a' }, key);
        expect(first.status).toBe(503);
      } finally {
        timers.forEach(clearTimeout);
        sub.unsubscribe();
      }
      // Nobody listens now: the retry reaches the bus (503 at once) instead of finding its key still held (409)
      // for the minute a late reply is otherwise waited for. (The key is released just after the 503 is sent.)
      const retry = await pollUntil(() => api.post('/v1/agents', { name: 'Keyed desk', voice_platform: 'platform_a' }, key), (res) => res.status !== 409, 3_000, 100);
      expect(retry.status).toBe(503);
      expect(retry.body.error.code).toBe('service_unavailable');
    });

    it('without any signal a write gets the base RPC timeout to be taken up, as every request does', async () => {
      const sub = await respondToCreates(() => undefined);
      try {
        const started = Date.now();
        const res = await apiClient(system.baseUrl, apiKey).post('/v1/agents', { name: 'Unheard desk', voice_platform: 'platform_a' });
        const elapsed = Date.now() - started;
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe('service_unavailable');
        expect(elapsed).toBeGreaterThanOrEqual(rpcTimeoutMs - 50);
        expect(elapsed).toBeLessThan(rpcTimeoutMs + 1_000);
      } finally {
        sub.unsubscribe();
      }
    });

    it('signals never stretch a write past RPC_TIMEOUT_MS + the 10 s platform allowance', async () => {
      const timers: NodeJS.Timeout[] = [];
      const sub = await respondToCreates((reply) => {
        for (let at = 500; at < 20_000; at += 500) timers.push(setTimeout(() => reply.progress(), at));
      });
      try {
        const started = Date.now();
        const res = await apiClient(system.baseUrl, apiKey).post('/v1/agents', { name: 'Endless desk', voice_platform: 'platform_a' });
        const elapsed = Date.now() - started;
        expect(res.status).toBe(503);
        expect(res.body.error.message).toMatch(/did not answer within/);
        expect(elapsed).toBeGreaterThanOrEqual(rpcTimeoutMs + 10_000 - 50);
        expect(elapsed).toBeLessThan(rpcTimeoutMs + 10_000 + 1_500);
      } finally {
        timers.forEach(clearTimeout);
        sub.unsubscribe();
      }
    }, 30_000);
  });
});

describe('agent writes in one-process mode: the same progress signals over the in-process bus', () => {
  let system: LocalSystem;

  beforeAll(async () => {
    system = await startLocalSystem('liveness', { rpcTimeoutMs }, { platformCallTimeoutMs });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  it('a create slower than RPC_TIMEOUT_MS is answered 201 synced', async () => {
    const admin = apiClient(system.baseUrl, system.adminToken);
    const created = await admin.post('/v1/admin/accounts', { name: 'Liveness', plan: 'starter', agent_limit: 5, voice_platforms: ['platform_a'] });
    expect(created.status).toBe(201);
    const api = apiClient(system.baseUrl, created.body.data.api_key);
    await configureIntegrations(api, system.platforms, ['platform_a']);
    system.platforms.simulators.platformA.faults.delay(platformDelayMs);
    try {
      const started = Date.now();
      const res = await api.post('/v1/agents', { name: 'Slow local desk', voice_platform: 'platform_a' });
      expect(res.status).toBe(201);
      expect(res.body.data.platform_sync.state).toBe('synced');
      expect(Date.now() - started).toBeGreaterThan(rpcTimeoutMs + PROGRESS_SILENCE_MS);
    } finally {
      system.platforms.simulators.platformA.faults.clear('delay');
    }
  });
});
