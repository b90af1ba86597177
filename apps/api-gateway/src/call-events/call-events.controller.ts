import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { AgentsRpc, type VerifyAgentOwnershipReply, type VerifyAgentOwnershipRequest } from '@voice/contracts';
import { RequireScope } from '../auth/access.decorators.js';
import { ref } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiJsonBody, ApiRoute } from '../openapi/route-docs.js';
import { ApiFailure, apiFailure } from '../http/api-failure.js';
import { success } from '../http/envelope.js';
import { callerOf, requestIdOf } from '../http/gateway-request.js';
import { ServiceClient } from '../rpc/service-client.js';
import { CallEventPublisher } from './call-event-publisher.js';
import { fieldOf, parseCallEvents } from './call-event-batch.js';

@Controller('v1/call-events')
export class CallEventsController {
  constructor(
    private readonly services: ServiceClient,
    private readonly publisher: CallEventPublisher,
  ) {}

  @Post()
  @RequireScope('call_events:write')
  @HttpCode(202)
  @ApiRoute(
    'Call events',
    'Ingest call events',
    'One event, or `{ "events": [...] }` with 1–500. The whole request is checked first (the first bad event is named like `events[3].data.caller_number`, an agent of another account is 422 unknown_agent); 202 is sent once every event is durably queued. Event ids de-duplicate, so retrying is safe.',
  )
  @ApiJsonBody({ oneOf: [ref('CallEvent'), ref('CallEventBatch')] })
  @ApiEnvelope(202, 'CallEventsAccepted', { description: 'Accepted for processing; conversations reflect them shortly after.' })
  @ApiErrors('invalid_request', 'invalid_parameter', 'missing_required_field', 'invalid_date_format', 'unknown_agent')
  async ingest(@Req() req: Request, @Body() body: unknown) {
    const parsed = parseCallEvents(body);
    if (!parsed.ok) throw new ApiFailure(parsed.problem);
    const requestId = requestIdOf(req);

    // Every event must name an agent of the caller's account, or one account could write into another's records.
    const agentIds = [...new Set(parsed.events.map(({ event }) => event.agent_id))];
    const ownership: VerifyAgentOwnershipRequest = { account_id: callerOf(req).account.id, agent_ids: agentIds };
    const { unknown_agent_ids } = await this.services.send<VerifyAgentOwnershipReply>(AgentsRpc.verifyOwnership, ownership, { requestId });
    const unknown = new Set(unknown_agent_ids);
    const offending = parsed.events.find(({ event }) => unknown.has(event.agent_id));
    if (offending) {
      throw apiFailure('unknown_agent', `Agent ${offending.event.agent_id} is not an agent of this account.`, {
        field: fieldOf(offending.path, 'agent_id'),
      });
    }

    const events = parsed.events.map(({ event }) => event);
    await this.publisher.publishAll(events);
    return success(req, { accepted: events.length, event_ids: events.map((e) => e.id) });
  }
}
