import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AGENT_LIST_LIMITS,
  AGENT_STATUSES,
  AgentsRpc,
  VOICE_PLATFORMS,
  type AgentReply,
  type AgentView,
  type CreateAgentRequest,
  type DeleteAgentRequest,
  type GetAgentRequest,
  type ListAgentsRequest,
  type PageResult,
  type RawQuery,
  type UpdateAgentRequest,
} from '@voice/contracts';
import { RequireScope } from '../auth/access.decorators.js';
import { apiFailure } from '../http/api-failure.js';
import { listEnvelope, success } from '../http/envelope.js';
import { callerOf, clientAddressOf, headerOf, requestIdOf } from '../http/gateway-request.js';
import { etagOf, ifMatchHolds, parseIfMatch } from '../http/if-match.js';
import { AGENT_EXAMPLE } from '../openapi/examples.js';
import { enumOf, ref, string } from '../openapi/json-schema.js';
import {
  ApiEnvelope, ApiErrors, ApiFilter, ApiIdParam, ApiIfMatch, ApiJsonBody, ApiNoContent, ApiPagination, ApiRoute,
} from '../openapi/route-docs.js';
import { ServiceClient, type LateReply } from '../rpc/service-client.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../tokens.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { idempotencyOf } from '../idempotency/idempotency.interceptor.js';
import { LATE_REPLY_WAIT_MS } from '../idempotency/idempotency.rules.js';

/**
 * Creates, updates and deletes wait for the agent's platform sync (agents-service's PLATFORM_SYNC_INLINE_MS,
 * at most 10 s) on top of the usual service time: allow for it, so a slow platform gives 201 pending, never a 503.
 * Their handlers report progress meanwhile, so a service that dies mid-request is a 503 within seconds, not
 * after the whole allowance.
 */
const PLATFORM_SYNC_ALLOWANCE_MS = 10_000;

const IF_MATCH_FORMAT = 'If-Match must be * or a comma-separated list of ETags returned by this API, like "3" or "3", "4".';

/**
 * The version to hand the service as expected_version, from If-Match. The
 * common case (one strong tag) costs nothing extra: the service compares it
 * atomically with the write. A list, or only weak tags, needs the current
 * version first (unknown agent → 404 before any 412, RFC 9110 §13.2.1); the
 * matching tag is then passed on so a change in between is still a 412.
 */
async function expectedVersion(req: FastifyRequest, read: () => Promise<number>): Promise<number | undefined> {
  const ifMatch = parseIfMatch(headerOf(req, 'if-match'));
  switch (ifMatch.kind) {
    case 'absent':
    case 'any':
      return undefined;
    case 'malformed':
      throw apiFailure('invalid_request', IF_MATCH_FORMAT, { field: 'If-Match' });
    case 'tags': {
      if (ifMatch.strong.length === 1 && ifMatch.strong[0] >= 1) return ifMatch.strong[0];
      const current = await read();
      if (ifMatchHolds(ifMatch, current)) return current;
      const why = ifMatch.strong.length === 0
        ? 'If-Match holds only weak ETags (W/"…"), which never match: the comparison is strong. Send the ETag as returned'
        : 'None of the ETags in If-Match is the current one';
      throw apiFailure('precondition_failed', `${why}; the agent is at ${etagOf(current)}.`, { field: 'If-Match' });
    }
  }
}

/** The 201 of a create: the agent, where it lives and its ETag. */
function created(req: FastifyRequest, reply: AgentReply) {
  return {
    body: success(req, reply.agent),
    headers: { Location: `/v1/agents/${encodeURIComponent(reply.agent.id)}`, ETag: etagOf(reply.version) },
  };
}

@Controller('v1/agents')
export class AgentsController {
  constructor(
    private readonly services: ServiceClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /** The RPC options of a command that reaches the voice platform. */
  private syncing(req: FastifyRequest) {
    return {
      requestId: requestIdOf(req),
      timeoutMs: this.settings.rpcTimeoutMs + PLATFORM_SYNC_ALLOWANCE_MS,
      reportsProgress: true,
      // The agent's events keep who made the change; the audit log reads it from them.
      actor: { keyId: callerOf(req).key_id, clientAddress: clientAddressOf(req) },
    };
  }

  @Post()
  @RequireScope('agents:write')
  @Idempotent()
  @HttpCode(201)
  @ApiRoute(
    'Agents',
    'Create an agent',
    'Starts active, and is created on its voice platform before the answer (up to 8 s): with phone_number the number is imported ' +
      'there, without it one is bought. The account needs an integration for the platform (else 422 platform_not_configured). ' +
      'Synced → platform_sync.state synced with the platform’s agent id. The platform refusing the agent (platform_rejected, ' +
      'phone_number_in_use, phone_number_unavailable, invalid_platform_credentials) → 422 and nothing is left on either side. ' +
      'The platform unreachable, slow, 429 or 5xx → still 201 with platform_sync.state pending (phone_number null while a number to ' +
      'buy is pending); a background process completes it.',
  )
  @ApiJsonBody(ref('CreateAgentRequest'))
  @ApiEnvelope(201, 'Agent', { description: 'The created agent.', headers: ['Location', 'ETag'] })
  @ApiErrors(
    'invalid_request', 'invalid_parameter', 'missing_required_field', 'quota_exceeded', 'duplicate_name', 'platform_not_configured', 'phone_number_in_use',
    'phone_number_unavailable', 'platform_rejected', 'invalid_platform_credentials',
  )
  async create(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply, @Body() body: unknown) {
    const idempotency = idempotencyOf(req);
    const payload: CreateAgentRequest = { account: callerOf(req).account, body, ...(idempotency ? { idempotency_key: idempotency.key } : {}) };
    // With a key, a create that outlives the timeout is not forgotten: its reply, when it comes, becomes the
    // key's answer, so the client's retry gets the agent rather than running the create again (duplicate_name).
    const lateReply: LateReply<AgentReply> | undefined = idempotency && {
      waitMs: LATE_REPLY_WAIT_MS,
      take: (late) => idempotency.answerLater(late.then((reply) => ({ status: 201, ...created(req, reply) }))),
    };
    const reply = await this.services.send<AgentReply>(AgentsRpc.create, payload, { ...this.syncing(req), lateReply });
    const answer = created(req, reply);
    res.headers(answer.headers);
    return answer.body;
  }

  @Get()
  @RequireScope('agents:read')
  @ApiRoute('Agents', 'List agents', 'Newest first; deleted agents are never listed.')
  @ApiPagination()
  @ApiFilter('status', enumOf(AGENT_STATUSES), 'Only agents in this status.')
  @ApiFilter('voice_platform', enumOf(VOICE_PLATFORMS), 'Only agents on this platform.')
  @ApiFilter('search', string({ maxLength: AGENT_LIST_LIMITS.search }), 'Case-insensitive substring of the name.')
  @ApiEnvelope(200, 'Agent', { description: 'One page of agents.', list: true })
  @ApiErrors('invalid_parameter')
  async list(@Req() req: FastifyRequest, @Query() query: RawQuery) {
    const payload: ListAgentsRequest = { account_id: callerOf(req).account.id, query: { ...query } };
    const page = await this.services.send<PageResult<AgentView>>(AgentsRpc.list, payload, { requestId: requestIdOf(req) });
    return listEnvelope(req, page);
  }

  @Get(':id')
  @RequireScope('agents:read')
  @ApiRoute('Agents', 'Get an agent')
  @ApiIdParam('Agent id (agt_…).')
  @ApiEnvelope(200, 'Agent', { description: 'The agent.', headers: ['ETag'], example: { data: AGENT_EXAMPLE, meta: { request_id: 'req-1', timestamp: AGENT_EXAMPLE.updated_at } } })
  @ApiErrors('not_found')
  async get(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply, @Param('id') id: string) {
    const payload: GetAgentRequest = { account_id: callerOf(req).account.id, agent_id: id };
    const reply = await this.services.send<AgentReply>(AgentsRpc.get, payload, { requestId: requestIdOf(req) });
    res.header('ETag', etagOf(reply.version));
    return success(req, reply.agent);
  }

  @Patch(':id')
  @RequireScope('agents:write')
  @ApiRoute(
    'Agents',
    'Update an agent',
    'Partial update; status pauses (the platform stops answering the number) or resumes the agent. Only the changed fields are sent to ' +
      'the platform, before the answer (up to 8 s); a platform refusal does not undo the change: the answer shows platform_sync.state ' +
      'failed with last_error, and the next change tries again. Switching voice_platform moves the agent and its number to the new platform.',
  )
  @ApiIdParam('Agent id (agt_…).')
  @ApiIfMatch(false)
  @ApiJsonBody(ref('UpdateAgentRequest'))
  @ApiEnvelope(200, 'Agent', { description: 'The updated agent.', headers: ['ETag'] })
  @ApiErrors(
    'invalid_request', 'invalid_parameter', 'not_found', 'precondition_failed', 'concurrent_modification', 'duplicate_name',
    'platform_not_configured', 'phone_number_in_use',
  )
  async update(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply, @Param('id') id: string, @Body() body: unknown) {
    const payload: UpdateAgentRequest = {
      account: callerOf(req).account,
      agent_id: id,
      body,
      expected_version: await expectedVersion(req, () => this.currentVersion(req, id)),
    };
    const reply = await this.services.send<AgentReply>(AgentsRpc.update, payload, this.syncing(req));
    res.header('ETag', etagOf(reply.version));
    return success(req, reply.agent);
  }

  @Delete(':id')
  @RequireScope('agents:write')
  @HttpCode(204)
  @ApiRoute(
    'Agents',
    'Delete an agent',
    'The agent stops answering calls: on its platform the number is unbound (a bought one released) and the agent deleted. Its conversations stay readable.',
  )
  @ApiIdParam('Agent id (agt_…).')
  @ApiIfMatch(false)
  @ApiNoContent('Deleted.')
  @ApiErrors('invalid_request', 'not_found', 'precondition_failed', 'concurrent_modification')
  async remove(@Req() req: FastifyRequest, @Param('id') id: string): Promise<void> {
    const payload: DeleteAgentRequest = {
      account_id: callerOf(req).account.id,
      agent_id: id,
      expected_version: await expectedVersion(req, () => this.currentVersion(req, id)),
    };
    await this.services.send<unknown>(AgentsRpc.delete, payload, this.syncing(req));
  }

  /** The agent's current version (its ETag); not_found when it does not exist for this account. */
  private async currentVersion(req: FastifyRequest, id: string): Promise<number> {
    const payload: GetAgentRequest = { account_id: callerOf(req).account.id, agent_id: id };
    const reply = await this.services.send<AgentReply>(AgentsRpc.get, payload, { requestId: requestIdOf(req) });
    return reply.version;
  }
}
