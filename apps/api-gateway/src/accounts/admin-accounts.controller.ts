import { Body, Controller, Header, HttpCode, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { validateBody } from '@voice/service-kit';
import { AuditLog } from '../audit/audit-log.js';
import { AdminOnly } from '../auth/access.decorators.js';
import { success } from '../http/envelope.js';
import { ref } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiJsonBody, ApiRoute } from '../openapi/route-docs.js';
import { AccountsStore } from './accounts.store.js';
import { CreateAccountBody } from './create-account.body.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';

/** Operator bootstrap; registered only when ADMIN_TOKEN is set, so without it the route does not exist. */
@Controller('v1/admin/accounts')
export class AdminAccountsController {
  constructor(
    private readonly accounts: AccountsStore,
    private readonly audit: AuditLog,
  ) {}

  @Post()
  @AdminOnly()
  @Idempotent()
  @HttpCode(201)
  // The body holds the account's first key: no cache or proxy may keep a copy.
  @Header('Cache-Control', 'no-store')
  @ApiRoute('Admin', 'Create an account', 'Returns the account and its first API key (all scopes), shown once.')
  @ApiJsonBody(ref('CreateAccountRequest'))
  @ApiEnvelope(201, 'CreatedAccount', { description: 'The new account.', headers: ['Cache-Control'] })
  @ApiErrors('invalid_request', 'invalid_parameter', 'missing_required_field')
  async create(@Req() req: FastifyRequest, @Body() body: unknown) {
    const input = validateBody(CreateAccountBody, body);
    const created = await this.accounts.create(input, ({ accountId, keyId }, runner) =>
      this.audit.record(req, { action: 'api_key.created', targetId: keyId, accountId }, runner),
    );
    return success(req, created);
  }
}
