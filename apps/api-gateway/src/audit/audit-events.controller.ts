import { Controller, Get, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AUDIT_ACTIONS } from '@voice/contracts';
import { RequireScope } from '../auth/access.decorators.js';
import { ApiFailure } from '../http/api-failure.js';
import { listEnvelope } from '../http/envelope.js';
import { callerOf } from '../http/gateway-request.js';
import { enumOf, string } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiFilter, ApiPagination, ApiRoute } from '../openapi/route-docs.js';
import { AuditEventsStore } from './audit-events.store.js';
import { parseAuditQuery } from './audit-events.params.js';

/** The account's audit log, read-only: no route changes or deletes an entry (the database refuses it too). */
@Controller('v1/audit-events')
export class AuditEventsController {
  constructor(private readonly store: AuditEventsStore) {}

  @Get()
  @RequireScope('audit:read')
  @ApiRoute(
    'Audit log',
    'List audit events',
    'Who changed what in the account, newest first: API keys, integrations, agents (with the names of the changed fields), webhook ' +
      'endpoints and data requests. Entries are never changed and are kept 365 days; they hold no secrets and nothing a caller said.',
  )
  @ApiPagination()
  @ApiFilter('action', enumOf(AUDIT_ACTIONS, { examples: ['agent.privacy_settings_changed'] }), 'Only this action.')
  @ApiFilter(
    'actor_key_id',
    string({ pattern: '^key_[0-9a-f]{24}$', maxLength: 28, examples: ['key_0123456789abcdef01234567'] }),
    'Only changes made with this API key.',
  )
  @ApiFilter(
    'target_id',
    string({ minLength: 1, maxLength: 128, examples: ['agt_5f0c3b8a9d2e4f6a7b8c9d0e'] }),
    'Only changes to this agent, key, endpoint, integration (platform) or data request.',
  )
  @ApiFilter('created_after', string({ maxLength: 35 }), 'On or after (ISO 8601 date or timestamp).')
  @ApiFilter('created_before', string({ maxLength: 35 }), 'On or before (a date alone: the whole day).')
  @ApiEnvelope(200, 'AuditEvent', { description: 'One page of audit events.', list: true })
  @ApiErrors('invalid_parameter', 'invalid_date_format')
  async list(@Req() req: FastifyRequest, @Query() query: Record<string, unknown>) {
    const parsed = parseAuditQuery(query);
    if (!parsed.ok) throw new ApiFailure(parsed.problem);
    const { filters, page, perPage } = parsed.query;
    const { items, total } = await this.store.list(callerOf(req).account.id, filters, perPage, (page - 1) * perPage);
    return listEnvelope(req, { items, total, page, per_page: perPage });
  }
}
