import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  DataRequestsRpc, type AccessDocument, type CreateDataRequestRequest, type DataRequestRequest, type DataRequestView, type ListDataRequestsRequest,
  type PageResult, type RawQuery,
} from '@voice/contracts';
import { AuditLog } from '../audit/audit-log.js';
import { RequireScope } from '../auth/access.decorators.js';
import { listEnvelope, success } from '../http/envelope.js';
import { callerOf, requestIdOf } from '../http/gateway-request.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { ACCESS_DOCUMENT_EXAMPLE } from '../openapi/data-request-schemas.js';
import { ref } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiIdParam, ApiJsonBody, ApiPagination, ApiRoute, RESPONSE_HEADERS } from '../openapi/route-docs.js';
import { ServiceClient } from '../rpc/service-client.js';

const REQUEST_ID = 'Data request id (dr_…).';

/**
 * Requests about one caller's data: erasure and access. conversations-service validates, stores and works them
 * through in the background; the gateway authenticates and forwards with the caller's account.
 */
@Controller('v1/data-requests')
export class DataRequestsController {
  constructor(
    private readonly services: ServiceClient,
    private readonly audit: AuditLog,
  ) {}

  private one(req: FastifyRequest, id: string): DataRequestRequest {
    return { account_id: callerOf(req).account.id, request_id: id };
  }

  @Post()
  @RequireScope('privacy:write')
  @Idempotent()
  @HttpCode(202)
  @ApiRoute(
    'Privacy',
    'Create a data request',
    'erasure: every conversation of the caller in this account is removed from every store (events, conversations, transcripts, search, ' +
      'statistics, outbound events and deliveries, the inbound webhook log) and a tombstone (id, reason, time; nothing personal) keeps it from ' +
      'coming back when a platform retries or a message is redelivered. access: one JSON document of every conversation of the caller with its ' +
      'transcript, downloadable for 24 hours from /v1/data-requests/{id}/download. Both run in the background (follow status, conversations_found ' +
      'and conversations_done); the caller’s number is kept only while the request runs. Conversations stored with the caller_number redaction ' +
      'category hold only the last 2 digits and cannot be found by number.',
  )
  @ApiJsonBody(ref('CreateDataRequestRequest'))
  @ApiEnvelope(202, 'DataRequest', { description: 'The request, accepted; it runs in the background.', headers: ['Location'] })
  @ApiErrors('invalid_request', 'invalid_parameter', 'missing_required_field')
  async create(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply, @Body() body: unknown) {
    const payload: CreateDataRequestRequest = { account_id: callerOf(req).account.id, body };
    const created = await this.services.send<DataRequestView>(DataRequestsRpc.create, payload, { requestId: requestIdOf(req) });
    // At the request's own creation time: it may already have run to its end (data_request.completed) by now.
    await this.audit.record(req, { action: 'data_request.created', targetId: created.id, occurredAt: created.created_at });
    res.header('Location', `/v1/data-requests/${encodeURIComponent(created.id)}`);
    return success(req, created);
  }

  @Get()
  @RequireScope('privacy:read')
  @ApiRoute('Privacy', 'List data requests', 'Newest first.')
  @ApiPagination()
  @ApiEnvelope(200, 'DataRequest', { description: 'One page of data requests.', list: true })
  @ApiErrors('invalid_parameter')
  async list(@Req() req: FastifyRequest, @Query() query: RawQuery) {
    const payload: ListDataRequestsRequest = { account_id: callerOf(req).account.id, query: { ...query } };
    const page = await this.services.send<PageResult<DataRequestView>>(DataRequestsRpc.list, payload, { requestId: requestIdOf(req) });
    return listEnvelope(req, page);
  }

  @Get(':id')
  @RequireScope('privacy:read')
  @ApiRoute('Privacy', 'Get a data request', 'Its status and progress.')
  @ApiIdParam(REQUEST_ID)
  @ApiEnvelope(200, 'DataRequest', { description: 'The data request.' })
  @ApiErrors('not_found')
  async get(@Req() req: FastifyRequest, @Param('id') id: string) {
    return success(req, await this.services.send<DataRequestView>(DataRequestsRpc.get, this.one(req, id), { requestId: requestIdOf(req) }));
  }

  @Get(':id/download')
  @RequireScope('privacy:read')
  @ApiRoute(
    'Privacy',
    'Download an access request’s document',
    'The JSON document of a completed access request: every conversation of the caller as GET /v1/conversations/{id} shows it (transcript ' +
      'included). Served for 24 hours after the request completed, then deleted: 410 export_expired. Before it completed: 409 export_not_ready; ' +
      'an erasure has no document (404).',
  )
  @ApiIdParam(REQUEST_ID)
  @ApiResponse({
    status: 200,
    description: 'The document, as an attachment.',
    headers: { 'Content-Disposition': RESPONSE_HEADERS['Content-Disposition'] },
    content: { 'application/json': { schema: ref('AccessDocument') as never, example: ACCESS_DOCUMENT_EXAMPLE } },
  })
  @ApiErrors('not_found', 'export_not_ready', 'export_expired')
  async download(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply, @Param('id') id: string) {
    const document = await this.services.send<AccessDocument>(DataRequestsRpc.download, this.one(req, id), { requestId: requestIdOf(req) });
    res.header('Content-Disposition', `attachment; filename="data-request-${id.replace(/[^A-Za-z0-9_-]/g, '_')}.json"`);
    return document;
  }
}
