import type { Request } from 'express';
import type { AccountContext } from '@voice/contracts';
import type { Scope } from '../auth/scopes.js';

/** What the gateway learns about a request before a controller runs. */
export interface Caller {
  account: AccountContext;
  key_id: string;
  scopes: Scope[];
}

export interface GatewayRequest extends Request {
  requestId: string;
  caller?: Caller;
}

export function requestIdOf(req: Request): string {
  return (req as GatewayRequest).requestId;
}

export function callerOf(req: Request): Caller {
  const caller = (req as GatewayRequest).caller;
  // The auth guard runs before every handler that asks for the caller; reaching
  // this without one is a wiring bug, not a client error.
  if (!caller) throw new Error('route has no authenticated caller');
  return caller;
}

/** The address the request came from (the connection's peer: a proxy in front is not looked through). */
export function clientAddressOf(req: Request): string | undefined {
  return req.socket.remoteAddress ?? undefined;
}
