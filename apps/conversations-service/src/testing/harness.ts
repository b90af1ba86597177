/**
 * Integration-test harness: the real service on a fresh database and its own
 * NATS namespace, plus a publisher for call and agent events (the contracts
 * other services and ingestors use) and an RPC client (what the gateway uses).
 */
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  agentEventSubject, callEventSubject, ConversationsRpc, namespacedSubject,
  type AgentIntegrationEvent, type AgentSnapshot, type CallEvent, type ConversationDetail, type ConversationListItem,
  type PageResult, type RawQuery, type TranscriptReply,
} from '@voice/contracts';
import { NamespacedNatsClient } from '@voice/service-kit';
import { createTestDatabase, deleteNamespaceStreams, randomNamespace, testNatsUrl } from '@voice/testing';
import pg from 'pg';
import { firstValueFrom, timeout } from 'rxjs';
import { startConversationsService, type RunningConversationsService } from '../app.js';
import type { ServiceTuning } from '../config/service-context.js';

export interface Harness {
  namespace: string;
  service: RunningConversationsService;
  js: JetStreamClient;
  nc: NatsConnection;
  db: pg.Pool;
  databaseUrl: string;
  /** Publish an agent integration event as the agents relay does; resolves once JetStream stored it (not once the service consumed it). */
  publishAgent(
    agent: Partial<AgentSnapshot> & { agent_id: string; account_id: string },
    version?: number,
    type?: AgentIntegrationEvent['type'],
    occurredAt?: string,
  ): Promise<void>;
  /** Wait until the service has recorded the agent at `version` or newer (a published agent event is consumed asynchronously). */
  agentKnown(agentId: string, version?: number): Promise<void>;
  /** publishAgent, then agentKnown. */
  publishKnownAgent(agent: Partial<AgentSnapshot> & { agent_id: string; account_id: string }, version?: number, type?: AgentIntegrationEvent['type']): Promise<void>;
  publishCallEvents(events: CallEvent[], msgIds?: string[]): Promise<void>;
  list(accountId: string, query?: RawQuery): Promise<PageResult<ConversationListItem>>;
  get(accountId: string, conversationId: string): Promise<ConversationDetail>;
  transcript(accountId: string, conversationId: string, format: string): Promise<TranscriptReply>;
  rpc<T>(pattern: string, payload: unknown): Promise<T>;
  /** Poll until `check` stops throwing (assertion-style), or rethrow its last error. */
  eventually<T>(check: () => Promise<T>, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export async function startHarness(options: { tuning?: Partial<ServiceTuning>; requireAccountSubject?: boolean } = {}): Promise<Harness> {
  const database = await createTestDatabase('conversations');
  const namespace = randomNamespace();
  const natsUrl = testNatsUrl();
  const service = await startConversationsService({ databaseUrl: database.url, natsUrl, namespace, tuning: options.tuning, requireAccountSubject: options.requireAccountSubject });
  const nc = await connect({ servers: natsUrl });
  const js = jetstream(nc);
  const client = new NamespacedNatsClient(namespace, { servers: [natsUrl] });
  await client.connect();
  const db = new pg.Pool({ connectionString: database.url, max: 3 });
  let agentEventSeq = 0;

  const rpc = <T>(pattern: string, payload: unknown) => firstValueFrom(client.send<T>(pattern, payload).pipe(timeout(5000)));
  const harness: Harness = {
    namespace,
    service,
    js,
    nc,
    db,
    databaseUrl: database.url,
    async publishAgent(agent, version = 1, type = 'AgentCreated', occurredAt = new Date().toISOString()) {
      const event: AgentIntegrationEvent = {
        id: `agent-event-${agent.agent_id}-${version}-${++agentEventSeq}`,
        type,
        version,
        occurred_at: occurredAt,
        agent: {
          name: `Agent ${agent.agent_id}`,
          voice_platform: 'platform_a',
          status: 'active',
          recording_enabled: true,
          transcription_enabled: true,
          ...agent,
        },
      };
      await js.publish(namespacedSubject(namespace, agentEventSubject(type)), JSON.stringify(event), { msgID: event.id });
    },
    async agentKnown(agentId, version = 1) {
      await harness.eventually(async () => {
        const { rows } = await db.query(`SELECT version FROM conversations.agents WHERE agent_id = $1`, [agentId]);
        if (!(rows[0]?.version >= version)) throw new Error(`agent ${agentId} not known at version ${version} yet`);
      });
    },
    async publishKnownAgent(agent, version = 1, type = 'AgentCreated') {
      await harness.publishAgent(agent, version, type);
      await harness.agentKnown(agent.agent_id, version);
    },
    async publishCallEvents(events, msgIds) {
      await Promise.all(
        events.map((e, i) =>
          js.publish(namespacedSubject(namespace, callEventSubject(e.type)), JSON.stringify(e), { msgID: msgIds?.[i] ?? e.id }),
        ),
      );
    },
    list: (accountId, query = {}) => rpc(ConversationsRpc.list, { account_id: accountId, query }),
    get: (accountId, conversationId) => rpc(ConversationsRpc.get, { account_id: accountId, conversation_id: conversationId }),
    transcript: (accountId, conversationId, format) => rpc(ConversationsRpc.transcript, { account_id: accountId, conversation_id: conversationId, format }),
    rpc,
    async eventually(check, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          return await check();
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    },
    async close() {
      await client.close();
      await service.close();
      await nc.close();
      await db.end();
      await deleteNamespaceStreams(namespace).catch(() => undefined);
      await database.drop();
    },
  };
  return harness;
}

/** Build call events for one conversation with readable defaults. */
export function callEvents(conversationId: string, agentId: string, startIso = '2025-03-01T10:00:00.000Z') {
  const t0 = Date.parse(startIso);
  let n = 0;
  const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();
  const make = <T extends CallEvent['type']>(type: T, seconds: number, data: Extract<CallEvent, { type: T }>['data']): CallEvent =>
    ({ id: `${conversationId}-${type}-${++n}`, type, conversation_id: conversationId, agent_id: agentId, occurred_at: at(seconds), data }) as CallEvent;
  return {
    at,
    /** Any event of the call, with every field its type allows. */
    event: make,
    started: (caller = '+14155550123', s = 0) => make('call.started', s, { caller_number: caller, start_time: at(s) }),
    progress: (s: number, data: Extract<CallEvent, { type: 'call.progress' }>['data']) => make('call.progress', s, data),
    transcript: (s: number, segments: Extract<CallEvent, { type: 'call.transcript' }>['data']['segments']) => make('call.transcript', s, { segments }),
    ended: (s: number, data: Partial<Extract<CallEvent, { type: 'call.ended' }>['data']> = {}) => make('call.ended', s, { end_time: at(s), duration: s, ...data }),
    failed: (s: number, data: Partial<Extract<CallEvent, { type: 'call.failed' }>['data']> = {}) => make('call.failed', s, { failure_reason: 'network_error', ...data }),
    abandoned: (s: number, data: Partial<Extract<CallEvent, { type: 'call.abandoned' }>['data']> = {}) => make('call.abandoned', s, { reason: 'caller_hangup', ...data }),
  };
}
