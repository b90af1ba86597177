import type { Response } from 'express';

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

  write(res: Response): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(this.status).set(this.headers).type('application/json').send(this.body);
  }
}
