import {
  AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, AgentEventTypes, agentEventSubject, namespacedStream, namespacedSubject,
  type AgentEventType, type AgentSyncFailedNotice, type OriginatedAgentEvent, type RequestOrigin,
} from '@voice/contracts';
import { OutboxRelay, type MessageStreams, type StoredEvent } from '@voice/service-kit';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { AGENTS_SCHEMA } from '../database/agents-database.js';
import { streamIdOf, type AgentState } from '../agent/agent.js';
import { evolve } from '../agent/agent.evolve.js';
import type { AgentEvent, AgentUpdated } from '../agent/agent.events.js';
import { loadAgentAt, type CommitListener } from '../agent/agent.store.js';
import { toSnapshot } from '../agent/agent.view.js';
import { isIntegrationStream } from '../integrations/integration.store.js';
import { agentIdOfSyncStream, isSyncStream } from '../platform-sync/platform-sync.store.js';
import { announcedSyncVersion, credentialsRefusedNotice, syncFailedNotice } from './agent-notices.rules.js';

export const AGENT_EVENTS_RELAY_NAME = 'agent-events-to-jetstream';

/**
 * Publishes every committed agent event to JetStream as an AgentIntegrationEvent
 * carrying the agent's full snapshot after the event, with who made the change and
 * which fields an update changed (OriginatedAgentEvent, for the audit log). PostgreSQL stays the
 * record: the checkpoint only moves after JetStream acknowledged, and the event
 * id travels as Nats-Msg-Id so consumers (and the stream) can de-duplicate.
 */
export class AgentEventsRelay implements CommitListener {
  private readonly relay: OutboxRelay;
  /** Last state per stream, so consecutive events of one agent need no re-read. */
  private readonly states = new Map<string, AgentState>();

  private constructor(
    private readonly dataSource: DataSource,
    private readonly streams: MessageStreams,
    private readonly namespace: string,
    logger: Logger,
    pollIntervalMs?: number,
  ) {
    this.relay = new OutboxRelay({
      dataSource,
      schema: AGENTS_SCHEMA,
      name: AGENT_EVENTS_RELAY_NAME,
      publish: async (events) => {
        for (const event of events) await this.publish(event);
      },
      logger,
      pollIntervalMs,
    });
  }

  /** `streams` is JetStream in the distributed mode, the in-process stand-in in one-process mode. */
  static async start(options: { dataSource: DataSource; streams: MessageStreams; namespace: string; logger: Logger; pollIntervalMs?: number }): Promise<AgentEventsRelay> {
    await options.streams.ensureStream(namespacedStream(options.namespace, AGENT_EVENTS_STREAM), [
      namespacedSubject(options.namespace, `${AGENT_EVENTS_SUBJECT_ROOT}.>`),
    ]);
    const relay = new AgentEventsRelay(options.dataSource, options.streams, options.namespace, options.logger, options.pollIntervalMs);
    relay.relay.start();
    return relay;
  }

  nudge(): void {
    this.relay.nudge();
  }

  async stop(): Promise<void> {
    await this.relay.stop();
  }

  private async publish(event: StoredEvent): Promise<void> {
    // The platform sync's and the integrations' own streams record our dealings with the platforms, not a change of
    // the agent: only a failed sync and a refused key are announced (AgentNoticeTypes). An outbound "agent drift
    // repaired" event would be made here from AgentPlatformDriftRepaired (driftRepairedNotice).
    if (isSyncStream(event.stream_id) || isIntegrationStream(event.stream_id)) {
      await this.publishNotice(event);
      return;
    }
    const state = await this.stateAt(event);
    const payload: OriginatedAgentEvent = {
      id: event.event_id,
      type: event.type as AgentEventType,
      version: event.stream_version,
      occurred_at: new Date(event.created_at).toISOString(),
      agent: toSnapshot(state),
      ...originOf(event),
    };
    await this.streams.publish(namespacedSubject(this.namespace, agentEventSubject(event.type)), payload, event.event_id);
  }

  private async publishNotice(event: StoredEvent): Promise<void> {
    const notice = isIntegrationStream(event.stream_id) ? credentialsRefusedNotice(event) : await this.syncFailedNoticeOf(event);
    if (!notice) return;
    await this.streams.publish(namespacedSubject(this.namespace, agentEventSubject(notice.type)), notice, event.event_id);
  }

  private async syncFailedNoticeOf(event: StoredEvent): Promise<AgentSyncFailedNotice | undefined> {
    const version = announcedSyncVersion(event);
    if (version === undefined) return undefined;
    const agent = await loadAgentAt(this.dataSource, streamIdOf(agentIdOfSyncStream(event.stream_id)), version);
    return agent && syncFailedNotice(event, toSnapshot(agent));
  }

  private async stateAt(event: StoredEvent): Promise<AgentState> {
    const cached = this.states.get(event.stream_id);
    let state: AgentState;
    if (cached && cached.version === event.stream_version - 1) {
      state = evolve(cached, { type: event.type, data: event.data } as AgentEvent);
    } else {
      state = (await loadAgentAt(this.dataSource, event.stream_id, event.stream_version))!;
    }
    if (this.states.size > 10_000) this.states.clear();
    this.states.set(event.stream_id, state);
    return state;
  }
}

/**
 * Where an event came from, from its metadata, and the names of the fields an update changed (their values stay
 * in the snapshot). Events recorded before the metadata carried the actor give no origin.
 */
function originOf(event: StoredEvent): { origin?: RequestOrigin; changed_fields?: string[] } {
  const m = event.metadata;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const origin: RequestOrigin | undefined = 'actor_key_id' in m
    ? { request_id: text(m.request_id), actor_key_id: text(m.actor_key_id), client_address: text(m.client_address) }
    : undefined;
  const changed = event.type === AgentEventTypes.updated ? Object.keys((event.data as AgentUpdated['data']).changes ?? {}) : undefined;
  return { ...(origin ? { origin } : {}), ...(changed ? { changed_fields: changed } : {}) };
}
