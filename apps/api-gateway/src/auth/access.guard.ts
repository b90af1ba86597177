import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { apiFailure } from '../http/api-failure.js';
import type { GatewayRequest } from '../http/gateway-request.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../tokens.js';
import { ACCESS_METADATA, type Access } from './access.decorators.js';
import { looksLikeApiKey } from './api-key.js';
import { ApiKeysStore } from './api-keys.store.js';
import { bearerToken } from './bearer.js';

const CHALLENGE = 'Bearer';
const INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"';

const missingCredentials = () =>
  apiFailure('authentication_required', 'Authentication required: send Authorization: Bearer <API key>.', {}, { 'WWW-Authenticate': CHALLENGE });
const invalidKey = () =>
  apiFailure('invalid_api_key', 'The API key is invalid or has been revoked.', {}, { 'WWW-Authenticate': INVALID_TOKEN_CHALLENGE });

/** Compares digests so neither the content nor the length of the admin token leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysStore,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS_METADATA, [context.getHandler(), context.getClass()]);
    if (!access) throw new Error(`route ${context.getClass().name}.${context.getHandler().name} declares no access rule`);
    if (access.kind === 'public') return true;

    const req = context.switchToHttp().getRequest<Request>();
    const bearer = bearerToken(req.get('authorization'));
    if (bearer.kind === 'missing') throw missingCredentials();
    if (bearer.kind === 'malformed') throw invalidKey();

    if (access.kind === 'admin') {
      // The admin controller is only registered when a token is configured; this guards a misconfiguration.
      if (!this.settings.adminToken || !sameSecret(bearer.token, this.settings.adminToken)) {
        throw apiFailure('invalid_api_key', 'The admin token is not valid.', {}, { 'WWW-Authenticate': INVALID_TOKEN_CHALLENGE });
      }
      return true;
    }

    if (!looksLikeApiKey(bearer.token)) throw invalidKey();
    const resolved = await this.keys.resolve(bearer.token);
    if (!resolved) throw invalidKey();
    if (!resolved.scopes.includes(access.scope)) {
      throw apiFailure('insufficient_permissions', `This API key lacks the ${access.scope} scope required by ${req.method} ${req.path}.`);
    }
    (req as GatewayRequest).caller = resolved;
    return true;
  }
}
