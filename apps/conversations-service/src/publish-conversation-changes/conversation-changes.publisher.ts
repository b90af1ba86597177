import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  CONVERSATION_CHANGES_RETENTION, CONVERSATION_CHANGES_STREAM, CONVERSATION_CHANGES_SUBJECT_ROOT, conversationChangesSubject,
  namespacedStream, namespacedSubject, type ConversationChange,
} from '@voice/contracts';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { changeMessageId, changeMustFitTheBus, PUBLISH_RETRY_DELAYS_MS } from './conversation-change.rules.js';

/** One publish attempt is abandoned after this long (the stream's acknowledgement never came). */
const PUBLISH_TIMEOUT_MS = 2_000;
/** Changes waiting to be published at most; past it new ones are dropped (logged) rather than held without bound. */
const MAX_WAITING = 50_000;
/** How long a stopping service waits for the changes still waiting. */
const DRAIN_MS = 3_000;

/**
 * Publishes what a committed recording changed in the list read model to CONVERSATION_CHANGES, one message per
 * conversation on its account's subject, for the live stream (GET /v1/conversations/stream). Committed batches
 * are queued in commit order and published one batch after the other, so one replica publishes a conversation's
 * versions in the order it committed them; recording never waits for it (a slow or unavailable changes stream
 * must not hold up call events). A change the bus does not take after three attempts is logged at error and
 * dropped: the read model is already right and the list shows it; only live subscribers miss that version
 * (the next change of the conversation carries the whole item again). So are changes still waiting when the
 * process dies.
 */
@Injectable()
export class ConversationChangesPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  private ready?: Promise<void>;
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: Pick<ServiceContext, 'streams' | 'namespace' | 'logger'>) {}

  /** The stream exists before the first change (followers can start); if the bus refuses now, the first publish tries again. */
  onApplicationBootstrap(): void {
    void this.ensureStream().catch((err: Error) => this.ctx.logger.warn({ reason: err.message }, 'could not create the conversation changes stream yet'));
  }

  /** Queue the changes of one committed transaction, after every batch queued before it. */
  enqueue(changes: readonly ConversationChange[]): void {
    if (changes.length === 0) return;
    if (this.waiting + changes.length > MAX_WAITING) {
      this.ctx.logger.error({ dropped: changes.length, waiting: this.waiting }, 'conversation changes not published: too many waiting for the bus');
      return;
    }
    this.waiting += changes.length;
    this.tail = this.tail.then(async () => {
      try {
        await Promise.all(changes.map((change) => this.publishOne(change)));
      } catch (err) {
        // publishOne settles every failure itself; anything else must not stop the changes queued after these.
        this.ctx.logger.error({ err }, 'conversation changes not published');
      } finally {
        this.waiting -= changes.length;
      }
    });
  }

  /** Resolves once every change queued so far is published or given up. */
  settled(): Promise<void> {
    return this.tail;
  }

  async onApplicationShutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.tail, new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_MS)))]);
    clearTimeout(timer);
  }

  private async publishOne(change: ConversationChange): Promise<void> {
    const payload = JSON.stringify(change);
    const refusal = changeMustFitTheBus(change, payload);
    const ids = { account_id: change.account_id, conversation_id: change.conversation.id, version: change.version };
    if (refusal) {
      this.ctx.logger.error({ ...ids, reason: refusal }, 'conversation change not published');
      return;
    }
    const subject = namespacedSubject(this.ctx.namespace, conversationChangesSubject(change.account_id));
    for (let attempt = 0; ; attempt++) {
      try {
        await this.ensureStream();
        await withTimeout(this.ctx.streams.publish(subject, change, changeMessageId(change)), PUBLISH_TIMEOUT_MS);
        return;
      } catch (err) {
        if (attempt >= PUBLISH_RETRY_DELAYS_MS.length) {
          this.ctx.logger.error({ ...ids, reason: (err as Error).message, attempts: attempt + 1 }, 'conversation change not published; live subscribers miss this version');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, PUBLISH_RETRY_DELAYS_MS[attempt]));
      }
    }
  }

  private ensureStream(): Promise<void> {
    this.ready ??= this.ctx.streams
      .ensureStream(
        namespacedStream(this.ctx.namespace, CONVERSATION_CHANGES_STREAM),
        [namespacedSubject(this.ctx.namespace, `${CONVERSATION_CHANGES_SUBJECT_ROOT}.>`)],
        CONVERSATION_CHANGES_RETENTION,
      )
      .catch((err) => {
        this.ready = undefined;
        throw err;
      });
    return this.ready;
  }
}

async function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no acknowledgement within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
