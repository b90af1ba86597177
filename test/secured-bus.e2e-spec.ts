import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { DEFAULT_CALL_EVENTS_MAX_AGE_MS } from '@voice/contracts';
import { ensureStream, natsConnectionOptions, StreamUpdateRefused } from '@voice/service-kit';
import { watchEventLoopStalls } from './support/event-loop-stalls.js';
import { openStream } from './support/event-stream.js';
import { pollUntil } from './support/poll.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

/**
 * The shipped NATS configuration (deploy/nats/nats-server.conf), unchanged, on a server of this test's
 * own: passwords and the publisher's account subject come from the server's environment, as in compose.
 */
const CONFIG = resolve('deploy/nats/nats-server.conf');
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const PUBLISHER_ACCOUNT = 'acct_0123456789abcdef01234567';

// Starting with a digit on purpose: nats-server reads `$VAR` values as config values, so the
// environment must quote them as docker-compose.yml does, or such a password is not a string.
const password = () => `9${randomBytes(12).toString('hex')}`;
const passwords = { gateway: password(), agents: password(), conversations: password(), notifications: password(), publisher: password() };
/** A value for nats-server's environment, as docker-compose.yml gives it. */
const quoted = (value: string) => `"${value}"`;

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

interface NatsServer {
  port: number;
  stop(): Promise<void>;
}

async function startNatsServer(): Promise<NatsServer> {
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'secured-bus-'));
  const child: ChildProcess = spawn(NATS_SERVER, ['-c', CONFIG, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], {
    env: {
      ...process.env,
      NATS_GATEWAY_PASSWORD: quoted(passwords.gateway),
      NATS_AGENTS_PASSWORD: quoted(passwords.agents),
      NATS_CONVERSATIONS_PASSWORD: quoted(passwords.conversations),
      NATS_NOTIFICATIONS_PASSWORD: quoted(passwords.notifications),
      NATS_PUBLISHER_PASSWORD: quoted(passwords.publisher),
      NATS_PUBLISHER_SUBJECT: quoted(`call_events.${PUBLISHER_ACCOUNT}.>`),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  for (const deadline = Date.now() + 10_000; !out.includes('Server is ready'); ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nats-server did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      // The server's own log (permission violations are logged there), for a failing run.
      if (process.env.SECURED_BUS_SERVER_LOG) console.log(out);
      // Its warnings and errors other than those the tests cause on purpose (refused publishes, subscriptions and logins)
      // and the plaintext passwords of the shipped configuration: what a stalled or cut connection leaves behind (a slow
      // consumer, a write deadline, a slow read loop), shown whether or not a test failed.
      const expected = /(Publish|Subscription) Violation|authentication error|Plaintext passwords/;
      const trouble = out.split('\n').filter((line) => /\[(WRN|ERR)\]/.test(line) && !expected.test(line));
      if (trouble.length) console.log(`nats-server warnings and errors:\n${trouble.slice(-50).join('\n')}`);
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

const T0 = Date.parse('2025-03-01T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString().replace('.000Z', 'Z');
const callEvents = (conversationId: string, agentId: string) => [
  { id: `${conversationId}-1`, type: 'call.started', conversation_id: conversationId, agent_id: agentId, occurred_at: at(0),
    data: { caller_number: '+14155550100', start_time: at(0) } },
  { id: `${conversationId}-2`, type: 'call.ended', conversation_id: conversationId, agent_id: agentId, occurred_at: at(60),
    data: { end_time: at(60), duration: 60, summary: 'Booked a table.', sentiment: 'positive', outcome: 'appointment_booked', topics: ['booking'] } },
];

describe('the secured bus (deploy/nats/nats-server.conf)', () => {
  // The warnings and errors of the gateway, agents-service and notifications-service (a publish the stream did not
  // acknowledge, a request not answered, with their reasons), shown after the file: what explains a 503 on a loaded
  // machine. Deliveries to the outbound test's endpoint fail on purpose once its receiver is closed: left out, as the
  // nats-server refusals the tests cause are.
  const appWarnings: string[] = [];
  const onPurpose = /webhook delivery failed after its last attempt/;
  const logger = pino({ level: 'warn' }, { write: (line: string) => void (onPurpose.test(line) || appWarnings.push(line)) });
  // The apps run in this process: a stall of its event loop (synchronous work, a collection, the process not
  // scheduled) delays every wait of the file at once, so each stall is recorded and shown after the file.
  const loop = watchEventLoopStalls(() => expect.getState().currentTestName);
  let nats: NatsServer;
  let system: RunningSystem;
  let account: TestAccount;
  const url = (user: keyof typeof passwords) => `nats://${user}:${passwords[user]}@127.0.0.1:${nats.port}`;
  const opened: NatsConnection[] = [];
  const connectAs = async (user: keyof typeof passwords) => {
    const nc = await connect({ ...natsConnectionOptions(url(user)), reconnect: false });
    opened.push(nc);
    return nc;
  };
  const callEventsInStream = async () => {
    const jsm = await jetstreamManager(await connectAs('gateway'));
    return (await jsm.streams.info('CALL_EVENTS')).state.messages;
  };

  beforeAll(async () => {
    nats = await startNatsServer();
    // Publishes of ~900 KB call events wait for the stream's acknowledgement within the request's deadline: on a
    // machine running the whole suite at once, 3 s proved too short for them (as in large-replies.e2e-spec.ts).
    system = await startSystem({ rpcTimeoutMs: 10_000, logger, nats: { gateway: url('gateway'), agents: url('agents'), conversations: url('conversations'), notifications: url('notifications'), namespace: '' } });
    account = await system.createAccount();
  }, 60_000);

  afterAll(async () => {
    for (const nc of opened) await nc.close().catch(() => undefined);
    await system?.close();
    await nats?.stop();
    if (appWarnings.length) console.log(`the apps' warnings and errors:\n${appWarnings.slice(-50).join('')}`);
    loop.stop();
    if (loop.stalls().length) console.log(`this process's event loop stalled:\n${loop.stalls().join('\n')}`);
  });

  it('carries the whole service: agents, call events, conversations', async () => {
    const agent = await account.api.post('/v1/agents', { name: 'Bookings', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    const live = await openStream(system.baseUrl, account.api_key);
    expect(live.status).toBe(200);
    const posted = await account.api.post('/v1/call-events', { events: callEvents('conv-secured-1', agent.body.data.id) });
    expect(posted.status).toBe(202);
    const detail = await pollUntil(
      () => account.api.get('/v1/conversations/conv-secured-1'),
      (r) => r.status === 200 && r.body.data.status === 'completed',
      15_000,
    );
    expect(detail.body.data).toMatchObject({ id: 'conv-secured-1', agent_id: agent.body.data.id, agent_name: 'Bookings', duration: 60 });
    // The live stream carried the call too: conversations-service published the changes, the gateway followed them.
    await pollUntil(async () => live.events.at(-1)?.data, (last) => last?.id === 'conv-secured-1' && last.status === 'completed', 10_000);
    live.close();
    // The gateway published them on the account's subjects.
    const jsm = await jetstreamManager(await connectAs('gateway'));
    const subjects = Object.keys((await jsm.streams.info('CALL_EVENTS', { subjects_filter: '>' })).state.subjects ?? {});
    expect(subjects).toEqual(expect.arrayContaining([`call_events.${account.id}.call.started`, `call_events.${account.id}.call.ended`]));
    const health = await system.anonymous.get('/health');
    expect(health.status).toBe(200);
  }, 30_000);

  it('carries outbound events: the endpoints requests to notifications-service, and its consumers of the agents’ and the conversations’ streams', async () => {
    const received: Array<{ type: string }> = [];
    const receiver = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => (received.push(JSON.parse(body)), res.writeHead(204).end()));
    });
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/in`;
      const endpoint = await account.api.post('/v1/webhook-endpoints', { url, event_types: ['agent.created', 'conversation.ended'] });
      expect(endpoint.status).toBe(201);
      const agent = await account.api.post('/v1/agents', { name: 'Outbound', voice_platform: 'platform_a' });
      expect(agent.status).toBe(201);
      expect((await account.api.post('/v1/call-events', { events: callEvents('conv-secured-out', agent.body.data.id) })).status).toBe(202);
      await pollUntil(async () => received.map((e) => e.type).sort(), (types) => types.length >= 2, 15_000);
      expect(received.map((e) => e.type).sort()).toEqual(['agent.created', 'conversation.ended']);
    } finally {
      receiver.close();
    }
  }, 30_000);

  it('carries a reply bigger than the bus as a claim check (services store it, the gateway redeems it)', async () => {
    const agent = await account.api.post('/v1/agents', { name: 'Bulky', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    const id = 'conv-secured-long';
    const segments = (offset: number) =>
      Array.from({ length: 90 }, (_, i) => ({ speaker: i % 2 ? 'caller' : 'agent', text: `${offset + i} ${'x'.repeat(9_990)}`, start_ms: (offset + i) * 1000, end_ms: (offset + i) * 1000 + 900 }));
    const [started] = callEvents(id, agent.body.data.id);
    expect((await account.api.post('/v1/call-events', { events: [started] })).status).toBe(202);
    for (const [n, offset] of [[2, 0], [3, 90]] as const) {
      const event = { id: `${id}-t${n}`, type: 'call.transcript', conversation_id: id, agent_id: agent.body.data.id, occurred_at: at(n), data: { segments: segments(offset) } };
      const posted = await account.api.post('/v1/call-events', { events: [event] });
      // The body says which refusal a 503 was (no acknowledgement from the stream, or a service not answering).
      expect({ status: posted.status, body: posted.status === 202 ? undefined : posted.body }).toEqual({ status: 202, body: undefined });
    }
    const transcript = await pollUntil(
      () => account.api.get(`/v1/conversations/${id}/transcript?format=json`),
      (r) => r.status === 200 && r.text.length > 1_048_576,
      20_000,
    );
    expect(transcript.status).toBe(200);
    expect(transcript.text.length).toBeGreaterThan(1_048_576);
  }, 40_000);

  it('carries an erasure: the request, the notice to notifications-service and the gateway, the settlement for the audit log', async () => {
    // Run last of the service tests: it erases every call of +14155550100 the tests above recorded in the account.
    const agent = await account.api.post('/v1/agents', { name: 'Erasable', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    expect((await account.api.post('/v1/call-events', { events: callEvents('conv-secured-erased', agent.body.data.id) })).status).toBe(202);
    await pollUntil(() => account.api.get('/v1/conversations/conv-secured-erased'), (r) => r.status === 200 && r.body.data.status === 'completed', 15_000);
    const request = await account.api.post('/v1/data-requests', { type: 'erasure', caller_number: '+14155550100' });
    expect(request.status).toBe(202);
    await pollUntil(() => account.api.get(`/v1/data-requests/${request.body.data.id}`), (r) => r.body.data?.status === 'completed', 15_000);
    expect((await account.api.get('/v1/conversations/conv-secured-erased')).status).toBe(404);
    // notifications-service took the notice (its outbound events of the call are gone), as did the gateway's consumer.
    for (const [user, durable] of [['notifications', 'notifications-service-erasures'], ['gateway', 'api-gateway-erasures']] as const) {
      const jsm = await jetstreamManager(await connectAs(user));
      await pollUntil(async () => (await jsm.consumers.info('CONVERSATIONS_ERASED', durable)).ack_floor.stream_seq, (acked) => acked >= 1, 15_000);
    }
    // The settlement leaves conversations-service through its outbox, after the request reads completed: it reaches
    // the audit log through DATA_REQUEST_EVENTS on the secured bus a moment later.
    const settled = await pollUntil(
      () => account.api.get('/v1/audit-events?per_page=100'),
      (r) => r.status === 200 && r.body.data.some((e: { action: string; target_id: string }) => e.action === 'data_request.completed' && e.target_id === request.body.data.id),
      15_000,
    );
    expect(settled.body.data.map((e: { action: string; target_id: string }) => `${e.action} ${e.target_id}`)).toContain(`data_request.completed ${request.body.data.id}`);
    const jsm = await jetstreamManager(await connectAs('gateway'));
    expect((await jsm.streams.info('DATA_REQUEST_EVENTS')).state.messages).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('lets the gateway, and only the gateway, set the maximum age of CALL_EVENTS (CALL_EVENTS_MAX_AGE_MS)', async () => {
    const maxAgeOf = async () => (await (await jetstreamManager(await connectAs('gateway'))).streams.info('CALL_EVENTS')).config.max_age;
    // The gateway set its default at start.
    expect(await maxAgeOf()).toBe(DEFAULT_CALL_EVENTS_MAX_AGE_MS * 1_000_000);
    await ensureStream(await connectAs('gateway'), 'CALL_EVENTS', ['call_events.>'], { maxAgeMs: 3_600_000, updateMaxAge: true });
    expect(await maxAgeOf()).toBe(3_600_000 * 1_000_000);
    await expect(ensureStream(await connectAs('conversations'), 'CALL_EVENTS', ['call_events.>'], { maxAgeMs: 60_000, updateMaxAge: true }))
      .rejects.toBeInstanceOf(StreamUpdateRefused);
    expect(await maxAgeOf()).toBe(3_600_000 * 1_000_000);
    await ensureStream(await connectAs('gateway'), 'CALL_EVENTS', ['call_events.>'], { maxAgeMs: DEFAULT_CALL_EVENTS_MAX_AGE_MS, updateMaxAge: true });
  });

  it('refuses a client without credentials, or with a wrong password', async () => {
    await expect(connect({ servers: `127.0.0.1:${nats.port}`, reconnect: false })).rejects.toThrow(/authorization/i);
    await expect(connect({ servers: `127.0.0.1:${nats.port}`, user: 'gateway', pass: 'wrong', reconnect: false })).rejects.toThrow(/authorization/i);
  });

  it('lets the call-event publisher publish its account\'s call events and nothing else', async () => {
    const nc = await connectAs('publisher');
    const js = jetstream(nc, { timeout: 2_000 });
    const before = await callEventsInStream();
    const [event] = callEvents('conv-secured-pub', 'agt_unknown');
    await expect(js.publish(`call_events.${PUBLISHER_ACCOUNT}.call.started`, JSON.stringify(event), { msgID: `${PUBLISHER_ACCOUNT}:${event.id}` })).resolves.toMatchObject({ stream: 'CALL_EVENTS' });
    await expect(js.publish('call_events.acct_ffffffffffffffffffffffff.call.started', JSON.stringify({ ...event, id: 'other' }))).rejects.toThrow();
    await expect(js.publish('call_events.call.started', JSON.stringify({ ...event, id: 'unscoped' }))).rejects.toThrow();
    await expect(nc.request('conversations.get', JSON.stringify({ pattern: 'conversations.get', data: { account_id: account.id, id: 'conv-secured-1' }, id: '1' }), { timeout: 2_000 })).rejects.toThrow(/permission/i);
    expect(await callEventsInStream()).toBe(before + 1);
  }, 20_000);

  it('lets no service send another service\'s requests, nor serve them', async () => {
    const agents = await connectAs('agents');
    await expect(agents.request('conversations.get', '{}', { timeout: 2_000 })).rejects.toThrow(/permission/i);
    const conversations = await connectAs('conversations');
    await expect(conversations.request('agents.list', '{}', { timeout: 2_000 })).rejects.toThrow(/permission/i);
    await expect(conversations.request('integrations.webhook-secret', '{}', { timeout: 2_000 })).rejects.toThrow(/permission/i);

    // Subscribing to another service's requests (to read them, or answer in its place) is refused too.
    const errors: string[] = [];
    (async () => {
      for await (const s of agents.status()) if (s.type === 'error') errors.push(String((s as { error?: unknown }).error));
    })().catch(() => undefined);
    agents.subscribe('conversations.get');
    await agents.flush();
    await pollUntil(async () => errors.join(' '), (text) => /permission/i.test(text), 5_000);
  }, 20_000);

  it('keeps each user to its own reply inboxes', async () => {
    const agents = await connectAs('agents');
    const errors: string[] = [];
    (async () => {
      for await (const s of agents.status()) if (s.type === 'error') errors.push(String((s as { error?: unknown }).error));
    })().catch(() => undefined);
    agents.subscribe('_INBOX_gateway.>');
    await agents.flush();
    await pollUntil(async () => errors.join(' '), (text) => /permission/i.test(text), 5_000);
  }, 20_000);

  it('refuses what the publisher publishes on its account\'s subject about another account\'s agent', async () => {
    const agent = await account.api.post('/v1/agents', { name: 'Not the publisher\'s', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    // Known to conversations-service first (one call recorded through the gateway), so the refusal is the
    // recording's, not a parking that would be decided later.
    expect((await account.api.post('/v1/call-events', { events: callEvents('conv-known', agent.body.data.id) })).status).toBe(202);
    await pollUntil(() => account.api.get('/v1/conversations/conv-known'), (r) => r.status === 200, 15_000);
    const js = jetstream(await connectAs('publisher'), { timeout: 5_000 });
    // Allowed by the server (its own subject), refused by conversations-service: the agent is of another account.
    for (const e of callEvents('conv-foreign', agent.body.data.id)) {
      await js.publish(`call_events.${PUBLISHER_ACCOUNT}.${e.type}`, JSON.stringify(e), { msgID: `${PUBLISHER_ACCOUNT}:${e.id}` });
    }
    const jsm = await jetstreamManager(await connectAs('conversations'));
    await pollUntil(
      async () => {
        const info = await jsm.consumers.info('CALL_EVENTS', 'conversations-service');
        return info.num_pending + info.num_ack_pending;
      },
      (left) => left === 0,
      15_000,
    );
    expect((await account.api.get('/v1/conversations/conv-foreign')).status).toBe(404);
  }, 30_000);
});
