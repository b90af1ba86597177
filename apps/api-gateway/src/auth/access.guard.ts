import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { hash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiFailure, type ApiFailure } from '../http/api-failure.js';
import { headerOf, pathOf, type GatewayRequest } from '../http/gateway-request.js';
import { RateLimiter } from '../rate-limits/rate-limiter.js';
import { budgetOf } from '../rate-limits/rate-limits.rules.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../tokens.js';
import { ACCESS_METADATA, type Access } from './access.decorators.js';
import { hashApiKey, looksLikeApiKey } from './api-key.js';
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
  const digest = (s: string) => hash('sha256', s, 'buffer');
  return timingSafeEqual(digest(given), digest(expected));
}

@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysStore,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS_METADATA, [context.getHandler(), context.getClass()]);
    if (!access) throw new Error(`route ${context.getClass().name}.${context.getHandler().name} declares no access rule`);
    if (access.kind === 'public') return true;

    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const res = context.switchToHttp().getResponse<FastifyReply>();
    // Before anything is looked up: an address that failed too often waits, whatever it sends now.
    this.limiter.refuseThrottledAddress(req, res);
    const failed = (failure: ApiFailure) => this.limiter.failedAuthentication(req, res, failure);
    const bearer = bearerToken(headerOf(req, 'authorization'));
    if (bearer.kind === 'missing') throw await failed(missingCredentials());
    if (bearer.kind === 'malformed') throw await failed(invalidKey());

    if (access.kind === 'admin') {
      // The admin controller is only registered when a token is configured; this guards a misconfiguration.
      if (!this.settings.adminToken || !sameSecret(bearer.token, this.settings.adminToken)) {
        throw await failed(apiFailure('invalid_api_key', 'The admin token is not valid.', {}, { 'WWW-Authenticate': INVALID_TOKEN_CHALLENGE }));
      }
      return true;
    }

    if (!looksLikeApiKey(bearer.token)) throw await failed(invalidKey());
    // Per key and account, after authentication (a scope refusal spends too: it is the key's request).
    const secretHash = hashApiKey(bearer.token);
    const keyHash = secretHash.toString('base64');
    const budget = budgetOf(req.method, pathOf(req));
    this.limiter.refuseWhileRefused(res, keyHash, budget);
    const resolved = await this.keys.resolve(secretHash, keyHash);
    if (!resolved) throw await failed(invalidKey());
    await this.limiter.admit(res, keyHash, { key_id: resolved.key_id, account_id: resolved.account.id, plan: resolved.plan }, budget);
    if (!resolved.scopes.includes(access.scope)) {
      throw apiFailure('insufficient_permissions', `This API key lacks the ${access.scope} scope required by ${req.method} ${pathOf(req)}.`);
    }
    (req as GatewayRequest).caller = resolved;
    return true;
  }
}
