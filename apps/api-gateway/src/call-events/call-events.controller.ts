import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  AgentsRpc, ConversationsRpc, type CheckAnsweringReply, type CheckAnsweringRequest, type VerifyAgentOwnershipReply,
  type VerifyAgentOwnershipRequest,
} from '@voice/contracts';
import type { Logger } from 'pino';
import { RequireScope } from '../auth/access.decorators.js';
import { ref } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiJsonBody, ApiRoute } from '../openapi/route-docs.js';
import { ApiFailure, apiFailure } from '../http/api-failure.js';
import { success } from '../http/envelope.js';
import { callerOf, requestIdOf } from '../http/gateway-request.js';
import { ServiceClient } from '../rpc/service-client.js';
import { GATEWAY_SETTINGS, LOGGER, type GatewaySettings } from '../tokens.js';
import { CallEventPublisher } from './call-event-publisher.js';
import { fieldOf, parseCallEvents, type IndexedEvent } from './call-event-batch.js';
import type { CallEventsAccepted } from './call-events-accepted.view.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';

/** The answering check is an early answer, not the rule itself: it must not hold ingest up for long. */
const ANSWERING_CHECK_TIMEOUT_MS = 1_000;

@Controller('v1/call-events')
export class CallEventsController {
  constructor(
    private readonly services: ServiceClient,
    private readonly publisher: CallEventPublisher,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Post()
  @RequireScope('call_events:write')
  @Idempotent()
  @HttpCode(202)
  @ApiRoute(
    'Call events',
    'Ingest call events',
    'One event, or `{ "events": [...] }` with 1–500. The whole request is checked first (the first bad event is named like `events[3].data.caller_number`, an agent of another account is 422 unknown_agent, a call that started once its agent was paused or deleted is 422 agent_not_answering — events of calls that started before stay welcome); 202 is sent once every event is durably queued. Event ids de-duplicate within the account, so retrying is safe.',
  )
  @ApiJsonBody({ oneOf: [ref('CallEvent'), ref('CallEventBatch')] })
  @ApiEnvelope(202, 'CallEventsAccepted', { description: 'Accepted for processing; conversations reflect them shortly after.' })
  @ApiErrors('invalid_request', 'invalid_parameter', 'missing_required_field', 'invalid_date_format', 'unknown_agent', 'agent_not_answering')
  async ingest(@Req() req: FastifyRequest, @Body() body: unknown) {
    const parsed = parseCallEvents(body);
    if (!parsed.ok) throw new ApiFailure(parsed.problem);
    const requestId = requestIdOf(req);
    const accountId = callerOf(req).account.id;

    // Both questions at once; ownership is answered first.
    const answering = this.callsNotAnswered(accountId, parsed.events, requestId);
    answering.catch(() => undefined);
    // Every event must name an agent of the caller's account, or one account could write into another's records.
    const agentIds = [...new Set(parsed.events.map(({ event }) => event.agent_id))];
    const ownership: VerifyAgentOwnershipRequest = { account_id: accountId, agent_ids: agentIds };
    const { unknown_agent_ids } = await this.services.send<VerifyAgentOwnershipReply>(AgentsRpc.verifyOwnership, ownership, { requestId });
    const unknown = new Set(unknown_agent_ids);
    const offending = parsed.events.find(({ event }) => unknown.has(event.agent_id));
    if (offending) {
      throw apiFailure('unknown_agent', `Agent ${offending.event.agent_id} is not an agent of this account.`, {
        field: fieldOf(offending.path, 'agent_id'),
      });
    }
    const [refused] = await answering;
    if (refused) {
      const { event, path } = parsed.events[refused.index];
      throw apiFailure(
        'agent_not_answering',
        `Agent ${event.agent_id} is ${refused.status}: it does not answer call ${event.conversation_id}, which started after it was ${refused.status}.`,
        { field: fieldOf(path, 'agent_id') },
      );
    }

    const events = parsed.events.map(({ event }) => event);
    await this.publisher.publishAll(accountId, events);
    return success<CallEventsAccepted>(req, { accepted: events.length, event_ids: events.map((e) => e.id) });
  }

  /**
   * Events of calls whose agent was paused or deleted before they started, first one first, as
   * conversations-service (which learns agent statuses from agent events) would refuse them. When it
   * cannot be asked, ingest stays open: the events wait in JetStream and the service applies the same
   * rule when it records them (a refused event is then logged and dropped instead of answered 422).
   */
  private async callsNotAnswered(accountId: string, events: IndexedEvent[], requestId: string): Promise<CheckAnsweringReply['refused']> {
    const request: CheckAnsweringRequest = {
      account_id: accountId,
      events: events.map(({ event }) => ({
        conversation_id: event.conversation_id, agent_id: event.agent_id, occurred_at: event.occurred_at, type: event.type, id: event.id,
      })),
    };
    try {
      const { refused } = await this.services.send<CheckAnsweringReply>(ConversationsRpc.checkAnswering, request, {
        requestId,
        timeoutMs: Math.min(ANSWERING_CHECK_TIMEOUT_MS, this.settings.rpcTimeoutMs),
      });
      return [...refused].sort((a, b) => a.index - b.index);
    } catch (err) {
      if (err instanceof ApiFailure && err.detail.code === 'service_unavailable') {
        this.logger.warn({ reason: err.message }, 'could not check whether the agents answer these calls; conversations-service applies the rule when recording');
        return [];
      }
      throw err;
    }
  }
}
