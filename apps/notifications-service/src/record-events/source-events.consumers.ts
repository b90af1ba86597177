import {
  AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, CONVERSATION_CHANGES_RETENTION, CONVERSATION_CHANGES_STREAM, CONVERSATION_CHANGES_SUBJECT_ROOT,
  namespacedStream, namespacedSubject,
} from '@voice/contracts';
import type { MessageStreams, RunningConsumer, StreamMessage } from '@voice/service-kit';
import type { Logger } from 'pino';
import type { RecordEventsStore } from './record-events.store.js';
import { isAgentStreamMessage, isConversationChange } from './source-message.rules.js';

export const AGENT_EVENTS_DURABLE = 'notifications-service-agents';
export const CONVERSATION_CHANGES_DURABLE = 'notifications-service-conversations';

export interface SourceEventsSettings {
  streams: MessageStreams;
  namespace?: string;
  logger: Logger;
  store: RecordEventsStore;
  /** The wait before a new delivery's first attempt (the retry schedule's first entry). */
  firstDelayMs: number;
  /** PUBLIC_URL: the API's public address, the root of conversation.ended's `transcript_url` (the bare path without it). */
  publicBaseUrl?: string;
  batchSize?: number;
  ackWaitMs?: number;
}

/**
 * The two durable consumers events come from: the agents' relayed outbox (AGENT_EVENTS) and the conversation
 * changes (CONVERSATION_CHANGES). Each batch is recorded in one transaction and acked after its commit; a
 * malformed message is terminated (logged) so it never holds the others.
 */
export class SourceEventsConsumers {
  private readonly running: RunningConsumer[] = [];

  constructor(private readonly settings: SourceEventsSettings) {}

  async start(): Promise<void> {
    const { streams, namespace, store, firstDelayMs, publicBaseUrl } = this.settings;
    // Created here with the retention its publisher gives it, in case this service starts first.
    await streams.ensureStream(
      namespacedStream(namespace, CONVERSATION_CHANGES_STREAM), [namespacedSubject(namespace, `${CONVERSATION_CHANGES_SUBJECT_ROOT}.>`)], CONVERSATION_CHANGES_RETENTION,
    );
    this.running.push(await this.consume(AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, AGENT_EVENTS_DURABLE, isAgentStreamMessage, (events) => store.recordAgentEvents(events, firstDelayMs)));
    this.running.push(
      await this.consume(CONVERSATION_CHANGES_STREAM, CONVERSATION_CHANGES_SUBJECT_ROOT, CONVERSATION_CHANGES_DURABLE, isConversationChange, (changes) =>
        store.recordConversationChanges(changes, firstDelayMs, publicBaseUrl)),
    );
  }

  async stop(): Promise<void> {
    for (const consumer of this.running.splice(0)) await consumer.stop().catch((err: unknown) => this.settings.logger.error({ err }, 'consumer stop failed'));
  }

  private consume<T>(stream: string, subjectRoot: string, durable: string, wellFormed: (value: unknown) => value is T, record: (items: T[]) => Promise<number>) {
    const { streams, namespace, logger } = this.settings;
    return streams.consume(
      {
        stream: namespacedStream(namespace, stream),
        subjects: [namespacedSubject(namespace, `${subjectRoot}.>`)],
        durable,
        batchSize: this.settings.batchSize ?? 100,
        ackWaitMs: this.settings.ackWaitMs,
        logger,
      },
      async (batch: StreamMessage[]) => {
        const kept: StreamMessage[] = [];
        for (const message of batch) {
          if (wellFormed(message.data)) kept.push(message);
          else {
            logger.warn({ subject: message.subject, stream }, 'malformed source message; terminated');
            message.term('malformed');
          }
        }
        if (kept.length === 0) return;
        await record(kept.map((message) => message.data as T));
        for (const message of kept) message.ack();
      },
    );
  }
}
