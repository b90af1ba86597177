/**
 * What a platform's webhook delivery becomes: verified against the integration's secret over the raw
 * bytes, mapped to our call events (libs/contracts platform-webhooks), attributed to the account's agent
 * the platform names, queued durably on the call-event stream, and recorded in the delivery log with its
 * outcome. The platform is answered 200 only after both the stream and the log have it; an outage is a
 * 503 so that the platform retries (the events' deterministic ids make the retry harmless).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  attributeToAgent, findCallEventProblem, isVoicePlatform, mapPlatformWebhook, splitForTransport,
  type CallEvent, type VoicePlatform, type WebhookDeliveryListItem,
  type WebhookDeliveryOutcome,
} from '@voice/contracts';
import type { Logger } from 'pino';
import { CallEventPublisher } from '../call-events/call-event-publisher.js';
import { ApiFailure, apiFailure } from '../http/api-failure.js';
import { PlatformAgentDirectory } from './platform-agent-directory.js';
import { LOGGER } from '../tokens.js';
import { WebhookDeliveriesStore, type DeliveryWrite } from './webhook-deliveries.store.js';
import { WebhookIntegrations, type WebhookIntegration } from './webhook-integrations.js';
import { verifyWebhook, type WebhookHeaders } from './webhook-signature.rules.js';

/**
 * Largest call event put on the bus. NATS carries 1 MiB per message with its headers; a transcript
 * bigger than this travels as several transcript events of the same call (their segments unite).
 */
export const MAX_CALL_EVENT_BYTES = 512 * 1024;

export const newDeliveryId = () => `whd_${randomBytes(12).toString('hex')}`;

export function isDeliveryId(value: string): boolean {
  return /^whd_[0-9a-f]{24}$/.test(value);
}

export interface DeliveryToProcess {
  accountId: string;
  integrationId: string;
  platform: VoicePlatform;
  body: Buffer;
  replayOf: string | null;
  requestId: string;
}

interface Interpretation {
  outcome: WebhookDeliveryOutcome;
  reason: string | null;
  eventType: string | null;
  platformCallId: string | null;
  platformAgentId: string | null;
  conversationId: string | null;
  events: CallEvent[];
}

const SAME_ANSWER = 'The webhook signature is missing or does not match this webhook URL.';

@Injectable()
export class WebhookIngest {
  constructor(
    private readonly integrations: WebhookIntegrations,
    private readonly deliveries: WebhookDeliveriesStore,
    private readonly publisher: CallEventPublisher,
    private readonly directory: PlatformAgentDirectory,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** A delivery as the platform sent it. Throws ApiFailure 401 (unverified) or 503 (outage). */
  async receive(platform: string, integrationId: string, body: Buffer, headers: WebhookHeaders, requestId: string): Promise<WebhookDeliveryListItem> {
    // An unknown platform, an unknown integration and a wrong signature all get the same answer: ids cannot be probed.
    if (!isVoicePlatform(platform)) throw apiFailure('invalid_signature', SAME_ANSWER);
    // Only an integration of the route's platform can have signed the delivery.
    const verify = (found: WebhookIntegration | null) =>
      found && found.platform === platform ? verifyWebhook(platform, body, headers, found.webhook_secret, Date.now()) : undefined;
    let { integration, cached } = await this.integrations.find(integrationId, requestId);
    let verdict = verify(integration);
    if (cached && verdict?.ok !== true) {
      // The secret may have been replaced since it was cached: ask once more before refusing.
      ({ integration } = await this.integrations.find(integrationId, requestId, { fresh: true }));
      verdict = verify(integration);
    }
    if (!integration || !verdict) throw apiFailure('invalid_signature', SAME_ANSWER);
    if (!verdict.ok) {
      await this.countRejection(integration.id, integration.account_id, verdict.reason);
      throw verdict.reason === 'stale_timestamp'
        ? apiFailure('stale_timestamp', 'The webhook timestamp is more than 5 minutes away from our clock: check the sender’s clock, or whether this is an old delivery replayed.')
        : apiFailure('invalid_signature', SAME_ANSWER);
    }
    return this.process({ accountId: integration.account_id, integrationId: integration.id, platform, body, replayOf: null, requestId });
  }

  /**
   * Maps, queues and records one verified body (a delivery, or a replay of a stored one). The stream and
   * the log are written at once; the answer waits for both. Publishing a platform's retry again is
   * harmless (Nats-Msg-Id, then the event ids in the conversation store), so whether it is a duplicate is
   * decided by the log's insert itself.
   */
  async process(input: DeliveryToProcess): Promise<WebhookDeliveryListItem> {
    const found = await this.interpret(input);
    const write: DeliveryWrite = {
      id: newDeliveryId(),
      accountId: input.accountId,
      integrationId: input.integrationId,
      platform: input.platform,
      body: input.body,
      outcome: found.outcome,
      reason: found.reason,
      eventType: found.eventType,
      platformCallId: found.platformCallId,
      platformAgentId: found.platformAgentId,
      conversationId: found.conversationId,
      eventIds: found.events.map((event) => event.id),
      fingerprint: found.outcome === 'accepted' ? fingerprintOf(found.events) : null,
      replayOf: input.replayOf,
    };
    let item: WebhookDeliveryListItem;
    if (found.outcome === 'accepted') {
      const [recorded, published] = await Promise.allSettled([this.deliveries.record(write), this.publisher.publishAll(input.accountId, found.events)]);
      if (recorded.status === 'rejected') throw recorded.reason;
      item = recorded.value;
      if (published.status === 'rejected') {
        if (!(published.reason instanceof ApiFailure)) throw published.reason;
        // A duplicate's events were queued by the delivery it duplicates: only a new acceptance depends on this publish.
        if (item.outcome === 'accepted') {
          await this.deliveries.markFailed(item.id, 'The event stream did not acknowledge its call events; the platform’s retry (or a replay) records them.');
          throw published.reason;
        }
      }
    } else {
      item = await this.deliveries.record(write);
    }
    this.logger.info(
      { request_id: input.requestId, delivery_id: item.id, platform: input.platform, outcome: item.outcome, event_type: found.eventType, conversation_id: found.conversationId },
      'webhook delivery recorded',
    );
    return item;
  }

  private async interpret(input: DeliveryToProcess): Promise<Interpretation> {
    const none = { eventType: null, platformCallId: null, platformAgentId: null, conversationId: null, events: [] };
    let json: unknown;
    try {
      json = JSON.parse(input.body.toString('utf8'));
    } catch (err) {
      return { ...none, outcome: 'failed', reason: `The body is not JSON: ${(err as Error).message}` };
    }
    const mapping = mapPlatformWebhook(input.platform, json);
    if (mapping.result === 'malformed') return { ...none, outcome: 'failed', reason: `The body is not a ${input.platform} webhook: ${mapping.reason}` };
    if (mapping.result === 'ignored') {
      return {
        ...none,
        outcome: 'ignored',
        reason: mapping.reason,
        eventType: mapping.event_type,
        platformCallId: mapping.platform_call_id,
        platformAgentId: mapping.platform_agent_id,
      };
    }
    const known = { eventType: mapping.event_type, platformCallId: mapping.platform_call_id, platformAgentId: mapping.platform_agent_id };
    const agentId = await this.directory.agentOf(input.accountId, input.platform, mapping.platform_agent_id, input.requestId);
    if (!agentId) {
      return {
        ...none,
        ...known,
        outcome: 'ignored',
        reason: `The ${input.platform} agent ${mapping.platform_agent_id} is not linked to an agent of this account (yet): replay the delivery once it is.`,
      };
    }
    let events: CallEvent[];
    try {
      events = splitForTransport(attributeToAgent(mapping.events, agentId), MAX_CALL_EVENT_BYTES);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      return { ...none, ...known, outcome: 'failed', reason: `It maps to a call event too large for the bus: ${err.message}` };
    }
    for (const event of events) {
      const problem = findCallEventProblem(event);
      if (problem) {
        return { ...none, ...known, outcome: 'failed', reason: `It maps to call event ${event.id}, which is not valid: ${problem.field ? `${problem.field}: ` : ''}${problem.message}` };
      }
    }
    return { ...known, outcome: 'accepted', reason: null, conversationId: mapping.conversation_id, events };
  }

  /** Counting is bookkeeping: it must not turn a refusal into a 503. */
  private async countRejection(integrationId: string, accountId: string, reason: string): Promise<void> {
    try {
      await this.deliveries.countRejection(integrationId, accountId, reason);
    } catch (err) {
      this.logger.warn({ integration_id: integrationId, reason: (err as Error).message }, 'could not count a refused webhook delivery');
    }
  }
}

/** The same call events, in the same order, give the same fingerprint: what makes a redelivery a duplicate. */
export function fingerprintOf(events: readonly CallEvent[]): string {
  return createHash('sha256').update(JSON.stringify(events)).digest('hex');
}
