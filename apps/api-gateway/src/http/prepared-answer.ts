import type { FastifyReply } from 'fastify';

/**
 * An answer decided before the handler ran, written as it is (status, headers, body bytes): thrown by an
 * interceptor so the exception filter sends it in place of the handler's answer. Used to replay the stored
 * answer of an Idempotency-Key, whatever its status.
 */
export class PreparedAnswer extends Error {
  constructor(
    readonly status: number,
    /** A JSON document, sent byte for byte. */
    readonly body: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`prepared answer ${status}`);
  }

  write(reply: FastifyReply): void {
    if (reply.sent || reply.raw.headersSent) {
      if (!reply.raw.writableEnded) reply.raw.end();
      return;
    }
    reply.status(this.status).headers(this.headers).type('application/json; charset=utf-8').send(this.body);
  }
}
