import { Inject, Injectable } from '@nestjs/common';
import { accountCallEventSubject, namespacedSubject, type CallEvent } from '@voice/contracts';
import type { MessageStreams } from '@voice/service-kit';
import type { Logger } from 'pino';
import { apiFailure } from '../http/api-failure.js';
import { GATEWAY_SETTINGS, LOGGER, MESSAGE_STREAMS, type GatewaySettings } from '../tokens.js';

/**
 * JetStream de-duplication id of a call event. Event ids come from the voice
 * platforms and are unique only within an account, so the account is part of
 * it: two accounts' events with the same id must not de-duplicate each other.
 */
export function callEventMessageId(accountId: string, eventId: string): string {
  return `${accountId}:${eventId}`;
}

/** Publishes in flight at once: enough to fill the pipe, bounded so one request cannot flood the connection. */
const MAX_IN_FLIGHT = 64;

@Injectable()
export class CallEventPublisher {
  constructor(
    @Inject(MESSAGE_STREAMS) private readonly streams: MessageStreams,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Resolves only once the stream acknowledged every event. On failure some
   * events may already be stored; the client retries the whole request and the
   * event ids make the retry harmless: Nats-Msg-Id on the stream, the event id
   * unique per account in the conversations store.
   */
  async publishAll(accountId: string, events: CallEvent[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < events.length) {
        const event = events[next++];
        // The account in the subject: conversations-service checks it against the agent's account.
        const subject = namespacedSubject(this.settings.namespace, accountCallEventSubject(accountId, event.type));
        await this.withTimeout(this.streams.publish(subject, event, callEventMessageId(accountId, event.id), { ackTimeoutMs: this.settings.rpcTimeoutMs }));
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(MAX_IN_FLIGHT, events.length) }, worker));
    } catch (err) {
      this.logger.warn({ reason: err instanceof Error ? err.message : String(err) }, 'the stream did not acknowledge call events');
      throw apiFailure('service_unavailable', 'The event stream did not acknowledge the call events; retry the request (event ids make retries safe).');
    }
  }

  private async withTimeout(publish: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        publish,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no acknowledgement within ${this.settings.rpcTimeoutMs} ms`)), this.settings.rpcTimeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
