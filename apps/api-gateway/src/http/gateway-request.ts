import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountContext } from '@voice/contracts';
import type { Scope } from '../auth/scopes.js';

/** What the gateway learns about a request before a controller runs. */
export interface Caller {
  account: AccountContext;
  key_id: string;
  scopes: Scope[];
}

/**
 * A request as the gateway's handlers see it: Fastify's, with what the HTTP pipeline adds before any route runs
 * (http-pipeline.ts decorates every request with these fields, so each request object keeps one shape).
 */
export interface GatewayRequest extends FastifyRequest {
  requestId: string;
  /** The path as received, without the query string and undecoded. */
  path: string;
  caller?: Caller;
}

/** The reply every handler, guard and filter writes to. */
export type GatewayReply = FastifyReply;

export function requestIdOf(req: FastifyRequest): string {
  return (req as GatewayRequest).requestId;
}

export function pathOf(req: FastifyRequest): string {
  return (req as GatewayRequest).path;
}

/** A request header's value (the first one when the client repeated a header Node does not join). */
export function headerOf(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export function callerOf(req: FastifyRequest): Caller {
  const caller = (req as GatewayRequest).caller;
  // The auth guard runs before every handler that asks for the caller; reaching
  // this without one is a wiring bug, not a client error.
  if (!caller) throw new Error('route has no authenticated caller');
  return caller;
}

/** The address the request came from (the connection's peer: a proxy in front is not looked through). */
export function clientAddressOf(req: FastifyRequest): string | undefined {
  return req.socket.remoteAddress ?? undefined;
}

/** Adds `field` to the reply's Vary header, keeping what is there. */
export function varyOn(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  const fields = typeof current === 'string' ? current.split(',').map((f) => f.trim()).filter(Boolean) : [];
  if (fields.some((f) => f === '*' || f.toLowerCase() === field.toLowerCase())) return;
  reply.header('Vary', [...fields, field].join(', '));
}
