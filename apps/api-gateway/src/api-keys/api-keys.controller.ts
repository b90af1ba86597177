import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { findUnknownParameter } from '@voice/contracts';
import { validateBody } from '@voice/service-kit';
import { AuditLog } from '../audit/audit-log.js';
import { RequireScope } from '../auth/access.decorators.js';
import { ApiKeysStore } from '../auth/api-keys.store.js';
import { isApiKeyId } from '../auth/resource-ids.js';
import { ApiFailure, apiFailure } from '../http/api-failure.js';
import { listEnvelope, success } from '../http/envelope.js';
import { callerOf } from '../http/gateway-request.js';
import { PAGE_PARAMETERS, parsePageQuery } from '../http/pagination.js';
import { ref } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiIdParam, ApiJsonBody, ApiNoContent, ApiPagination, ApiRoute } from '../openapi/route-docs.js';
import type { Scope } from '../auth/scopes.js';
import { CreateApiKeyBody } from './create-api-key.body.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';

@Controller('v1/api-keys')
export class ApiKeysController {
  constructor(
    private readonly keys: ApiKeysStore,
    private readonly audit: AuditLog,
  ) {}

  @Post()
  @RequireScope('api_keys:write')
  @Idempotent()
  @HttpCode(201)
  @ApiRoute('API keys', 'Create an API key', 'The secret is shown only in this response. A key can grant only scopes it holds.')
  @ApiJsonBody(ref('CreateApiKeyRequest'))
  @ApiEnvelope(201, 'CreatedApiKey', { description: 'The new key with its secret.', headers: ['Cache-Control'] })
  @ApiErrors('invalid_request', 'invalid_parameter', 'missing_required_field')
  // The body holds the secret: no cache or proxy may keep a copy.
  @Header('Cache-Control', 'no-store')
  async create(@Req() req: FastifyRequest, @Body() body: unknown) {
    const input = validateBody(CreateApiKeyBody, body);
    const caller = callerOf(req);
    // A key can only hand out what it holds, so a restricted key cannot mint a stronger one.
    const beyond = scopesBeyond(caller.scopes, input.scopes);
    if (beyond.length > 0) {
      throw apiFailure('insufficient_permissions', `A key can only grant scopes it holds itself; this key lacks ${beyond.join(', ')}.`, {
        field: 'scopes',
      });
    }
    const key = await this.audit.recordWith(
      req,
      (runner) => this.keys.create(caller.account.id, input.scopes, input.name?.trim() ?? null, runner),
      (created) => ({ action: 'api_key.created', targetId: created.id }),
    );
    return success(req, key);
  }

  @Get()
  @RequireScope('api_keys:write')
  @ApiRoute('API keys', 'List API keys', 'Never includes the secrets.')
  @ApiPagination()
  @ApiEnvelope(200, 'ApiKey', { description: 'One page of keys.', list: true })
  @ApiErrors('invalid_parameter')
  async list(@Req() req: FastifyRequest, @Query() query: Record<string, unknown>) {
    const unknownParameter = findUnknownParameter(query, PAGE_PARAMETERS);
    if (unknownParameter) throw new ApiFailure(unknownParameter);
    const paging = parsePageQuery(query);
    if ('invalid' in paging) throw apiFailure('invalid_parameter', `${paging.invalid} must be a positive integer.`, { field: paging.invalid });
    const { items, total } = await this.keys.list(callerOf(req).account.id, paging.perPage, (paging.page - 1) * paging.perPage);
    return listEnvelope(req, { items, total, page: paging.page, per_page: paging.perPage });
  }

  @Delete(':id')
  @RequireScope('api_keys:write')
  @HttpCode(204)
  @ApiRoute('API keys', 'Revoke an API key', 'Effective on the next request; a key may revoke itself, and only keys whose scopes it holds too.')
  @ApiIdParam('Key id (key_…).')
  @ApiNoContent('Revoked.')
  @ApiErrors('not_found', 'insufficient_permissions')
  async revoke(@Req() req: FastifyRequest, @Param('id') id: string): Promise<void> {
    const caller = callerOf(req);
    // Another account's key is "not found", never "forbidden": existence is not revealed.
    const target = isApiKeyId(id) ? await this.keys.scopesOf(caller.account.id, id) : undefined;
    if (!target) throw apiFailure('not_found', `No API key ${id} in this account.`);
    // The same rule as creation, or a narrow key could lock the account out by revoking its broader keys.
    const beyond = scopesBeyond(caller.scopes, target);
    if (beyond.length > 0) {
      throw apiFailure('insufficient_permissions', `A key can only revoke keys whose scopes it holds itself; this key lacks ${beyond.join(', ')}.`);
    }
    await this.audit.recordWith(req, (runner) => this.keys.revoke(caller.account.id, id, runner), () => ({ action: 'api_key.revoked', targetId: id }));
  }
}

function scopesBeyond(held: readonly Scope[], wanted: readonly Scope[]): Scope[] {
  return wanted.filter((scope) => !held.includes(scope));
}
