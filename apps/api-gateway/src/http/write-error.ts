import type { Response } from 'express';
import { httpStatusOf, type ServiceError } from '@voice/contracts';
import { errorEnvelope } from './envelope.js';

/** Outages here are brief (a restarting replica, a reconnecting bus): invite a quick retry. */
const RETRY_AFTER_SECONDS = '1';

/** The one place an error envelope is written, used by the exception filter and the pre-routing middleware alike. */
export function writeError(res: Response, requestId: string, error: ServiceError, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const status = httpStatusOf(error.code);
  if (status === 503) res.set('Retry-After', RETRY_AFTER_SECONDS);
  res.status(status).set(headers).json(errorEnvelope(error, requestId));
}
