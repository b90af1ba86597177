import { randomUUID } from 'node:crypto';

/**
 * A client-supplied id is echoed into logs, headers and NATS headers, so only a
 * short id of safe characters is honoured; anything else gets a fresh UUID
 * rather than an error (a bad tracing header must never fail a request).
 */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/;

export function resolveRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  const trimmed = value?.trim();
  return trimmed && SAFE_REQUEST_ID.test(trimmed) ? trimmed : randomUUID();
}
