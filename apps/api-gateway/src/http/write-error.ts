import type { FastifyReply } from 'fastify';
import { httpStatusOf, type ServiceError } from '@voice/contracts';
import { errorEnvelope } from './envelope.js';

/** Outages here are brief (a restarting replica, a reconnecting bus): invite a quick retry. */
const RETRY_AFTER_SECONDS = '1';

/** The one place an error envelope is written, used by the exception filter and the pre-routing hooks alike. */
export function writeError(reply: FastifyReply, requestId: string, error: ServiceError, headers: Record<string, string> = {}): void {
  if (reply.sent || reply.raw.headersSent) {
    if (!reply.raw.writableEnded) reply.raw.end();
    return;
  }
  const status = httpStatusOf(error.code);
  if (status === 503) reply.header('Retry-After', RETRY_AFTER_SECONDS);
  reply.status(status).headers(headers).type('application/json; charset=utf-8').send(JSON.stringify(errorEnvelope(error, requestId)));
}
