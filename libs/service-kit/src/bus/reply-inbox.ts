import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';

type ReplyHandler = (error: Error | null, msg: Msg | undefined) => unknown;

/** A request's answer did not come: no reply within the deadline, nobody listening, or the subscription failed. */
export class ReplyFailed extends Error {
  override readonly name = 'ReplyFailed';
  constructor(readonly kind: 'timeout' | 'no_responders' | 'subscription', message: string) {
    super(message);
  }
}

/**
 * One wildcard reply subscription shared by every request a connection makes, each request waiting on
 * `<inbox prefix>.<nuid>.<token>`: what nats.js's own `request()` does, without its cost on the way out — it builds
 * an Error (a stack trace captured) to cancel every request that already succeeded, 7 % of the gateway's CPU while
 * it publishes call events (a JetStream publish is a request for the stream's acknowledgement). The reply subjects
 * keep the connection's inbox prefix, so per-user inbox permissions (the secured bus) hold unchanged.
 */
export class ReplyInbox {
  readonly prefix: string;
  private readonly pending = new Map<string, ReplyHandler>();
  private readonly subscription: Subscription;
  private next = 0;

  constructor(readonly connection: NatsConnection, inboxPrefix?: string) {
    this.prefix = `${createInbox(inboxPrefix)}.`;
    this.subscription = connection.subscribe(`${this.prefix}*`, {
      callback: (error, msg) => {
        if (error) {
          // The subscription itself failed (a permission violation, say): every request waiting on it fails now.
          const failure = new ReplyFailed('subscription', `the reply subscription failed: ${error.message}`);
          for (const handler of this.pending.values()) void handler(failure, undefined);
          this.pending.clear();
          return;
        }
        void this.pending.get(msg.subject.slice(this.prefix.length))?.(null, msg);
      },
    });
  }

  /** True while the subscription can still receive (false once its connection closed or it failed). */
  get open(): boolean {
    return !this.subscription.isClosed() && !this.connection.isClosed();
  }

  /** Routes replies to `<prefix><token>` to `handler` until `forget(token)`; the token must be one subject token. */
  listen(token: string, handler: ReplyHandler): string {
    this.pending.set(token, handler);
    return this.prefix + token;
  }

  forget(token: string): void {
    this.pending.delete(token);
  }

  /** Publishes and resolves with the first reply; rejects with ReplyFailed on no reply within `timeoutMs` or no responders. */
  request(subject: string, data: string | Uint8Array, options: { timeoutMs: number; headers?: MsgHdrs }): Promise<Msg> {
    const token = (this.next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new ReplyFailed('timeout', `no reply on ${subject} within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      const reply = this.listen(token, (error, msg) => {
        clearTimeout(timer);
        this.pending.delete(token);
        if (error) reject(error);
        // The server's own answer when no subscriber (no stream) took the message.
        else if (msg!.data.length === 0 && msg!.headers?.code === 503) reject(new ReplyFailed('no_responders', `nobody answers on ${subject}`));
        else resolve(msg!);
      });
      try {
        this.connection.publish(subject, data, { reply, headers: options.headers });
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(token);
        reject(err);
      }
    });
  }
}

/** The inbox prefix a connection was opened with (nats.js keeps its options on the connection). */
export function inboxPrefixOf(connection: NatsConnection): string | undefined {
  return (connection as unknown as { options?: { inboxPrefix?: string } }).options?.inboxPrefix;
}
