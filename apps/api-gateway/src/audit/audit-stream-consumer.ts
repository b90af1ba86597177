import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { namespacedStream, namespacedSubject } from '@voice/contracts';
import type { MessageStreams, RunningConsumer, StreamMessage } from '@voice/service-kit';
import type { Logger } from 'pino';
import type { GatewaySettings } from '../tokens.js';
import type { AuditEventsStore } from './audit-events.store.js';
import type { AuditEntry } from './audit.rules.js';

/** The durable consumer's name on every stream the audit log reads (each stream has its own consumers). */
export const AUDIT_DURABLE = 'api-gateway-audit';

/** What one message makes: its entries, nothing (a message the log does not record), or a malformed message. */
export type AuditReading = { entries: AuditEntry[] } | 'not_audited' | 'malformed';

/**
 * Audit entries read from a service's durable events. A durable consumer of the gateway's own, shared by every
 * gateway replica: a batch's entries are written in one statement, each once (by its source id), and the messages
 * are acknowledged only after the write committed, so a gateway that dies mid-batch leaves them to be delivered again.
 */
export abstract class AuditStreamConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private running?: RunningConsumer;

  protected constructor(
    private readonly source: { stream: string; subjectRoot: string; what: string },
    private readonly store: AuditEventsStore,
    private readonly streams: MessageStreams,
    private readonly settings: GatewaySettings,
    private readonly logger: Logger,
  ) {}

  protected abstract read(data: unknown): AuditReading;

  async onApplicationBootstrap(): Promise<void> {
    const namespace = this.settings.namespace;
    this.running = await this.streams.consume(
      {
        stream: namespacedStream(namespace, this.source.stream),
        subjects: [namespacedSubject(namespace, `${this.source.subjectRoot}.>`)],
        durable: AUDIT_DURABLE,
        logger: this.logger,
      },
      (batch) => this.handle(batch),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.running?.stop();
    this.running = undefined;
  }

  /** One delivery: messages the log does not record are acknowledged, malformed ones terminated, the rest written then acknowledged. */
  async handle(messages: readonly StreamMessage[]): Promise<void> {
    const recorded: StreamMessage[] = [];
    const entries: AuditEntry[] = [];
    for (const message of messages) {
      const reading = this.read(message.data);
      if (reading === 'not_audited') message.ack();
      else if (reading === 'malformed') {
        this.logger.warn({ subject: message.subject }, `malformed ${this.source.what} for the audit log; terminated`);
        message.term(`malformed ${this.source.what}`);
      } else {
        recorded.push(message);
        entries.push(...reading.entries);
      }
    }
    await this.store.append(entries);
    for (const message of recorded) message.ack();
  }
}
