import {
  AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, agentEventSubject, namespacedStream, namespacedSubject,
  type AgentEventType, type AgentIntegrationEvent,
} from '@voice/contracts';
import { OutboxRelay, type MessageStreams, type StoredEvent } from '@voice/service-kit';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { AGENTS_SCHEMA } from '../database/agents-database.js';
import type { AgentState } from '../agent/agent.js';
import { evolve } from '../agent/agent.evolve.js';
import type { AgentEvent } from '../agent/agent.events.js';
import { loadAgentAt, type CommitListener } from '../agent/agent.store.js';
import { toSnapshot } from '../agent/agent.view.js';
import { isSyncStream } from '../platform-sync/platform-sync.store.js';

export const AGENT_EVENTS_RELAY_NAME = 'agent-events-to-jetstream';

/**
 * Publishes every committed agent event to JetStream as an AgentIntegrationEvent
 * carrying the agent's full snapshot after the event. PostgreSQL stays the
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
    // The platform sync's own stream records our dealings with the platforms, not a change of the agent. An
    // outbound "agent drift repaired" event would be made here from AgentPlatformDriftRepaired (driftRepairedNotice).
    if (isSyncStream(event.stream_id)) return;
    const state = await this.stateAt(event);
    const payload: AgentIntegrationEvent = {
      id: event.event_id,
      type: event.type as AgentEventType,
      version: event.stream_version,
      occurred_at: new Date(event.created_at).toISOString(),
      agent: toSnapshot(state),
    };
    await this.streams.publish(namespacedSubject(this.namespace, agentEventSubject(event.type)), payload, event.event_id);
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
