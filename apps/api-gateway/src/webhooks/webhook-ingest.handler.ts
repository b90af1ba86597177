/**
 * A platform's webhook delivery, from its bytes to the answer, in one pass: the integration's secret is loaded
 * and the signature verified over the raw bytes, the body read (both the platform's, @voice/voice-platforms),
 * the account's agent the platform names looked up, what the delivery records decided (webhook-ingest.decider.ts),
 * then the call events queued durably on the call-event stream and the delivery recorded in the log with its
 * outcome (webhook-deliveries.store.ts).
 * The platform is answered 200 only after both the stream and the log have it; an outage is a 503 so that the
 * platform retries (the events' deterministic ids make the retry harmless).
 */
import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { isVoicePlatform, type VoicePlatform, type WebhookDeliveryListItem } from '@voice/contracts';
import type { Logger } from 'pino';
import { CallEventPublisher } from '../call-events/call-event-publisher.js';
import { ApiFailure, apiFailure } from '../http/api-failure.js';
import { PlatformAgentDirectory } from './platform-agent-directory.js';
import { LOGGER } from '../tokens.js';
import { WebhookDeliveriesStore, type DeliveryWrite } from './webhook-deliveries.store.js';
import { storedDeliveryBody, WHILE_AGENT_UNKNOWN, type CallIdentity } from './delivery-body-privacy.rules.js';
import { decideDelivery, fingerprintOf, signatureRefusal, type DeliveryBody, type Interpretation } from './webhook-ingest.decider.js';
import { WebhookIntegrations, type WebhookIntegration } from './webhook-integrations.js';
import { mapPlatformWebhook, verifyWebhook, type WebhookHeaders } from '@voice/voice-platforms';

export const newDeliveryId = () => `whd_${randomBytes(12).toString('hex')}`;

export interface DeliveryToProcess {
  accountId: string;
  integrationId: string;
  platform: VoicePlatform;
  body: Buffer;
  replayOf: string | null;
  requestId: string;
}

@Injectable()
export class WebhookIngestHandler {
  constructor(
    private readonly integrations: WebhookIntegrations,
    private readonly deliveries: WebhookDeliveriesStore,
    private readonly publisher: CallEventPublisher,
    private readonly directory: PlatformAgentDirectory,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** A delivery as the platform sent it. Throws ApiFailure 401 (unverified) or 503 (outage). */
  async receive(platform: string, integrationId: string, body: Buffer, headers: WebhookHeaders, requestId: string): Promise<WebhookDeliveryListItem> {
    if (!isVoicePlatform(platform)) throw refusal(undefined);
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
    if (!integration || !verdict) throw refusal(undefined);
    if (!verdict.ok) {
      await this.countRejection(integration.id, integration.account_id, verdict.reason);
      throw refusal(verdict);
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
    const body = readBody(input.platform, input.body);
    const named = 'mapping' in body && body.mapping.result === 'mapped' ? body.mapping.platform_agent_id : undefined;
    const linked = named === undefined ? undefined : await this.directory.agentOf(input.accountId, input.platform, named, input.requestId);
    const found = decideDelivery(input.platform, body, linked?.agentId);
    const stored = storedDeliveryBody(input.body, linked?.privacy ?? WHILE_AGENT_UNKNOWN, identityOf(body, found));
    const write = deliveryWrite({ ...input, body: stored }, found);
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

  /** Counting is bookkeeping: it must not turn a refusal into a 503. */
  private async countRejection(integrationId: string, accountId: string, reason: string): Promise<void> {
    try {
      await this.deliveries.countRejection(integrationId, accountId, reason);
    } catch (err) {
      this.logger.warn({ integration_id: integrationId, reason: (err as Error).message }, 'could not count a refused webhook delivery');
    }
  }
}

/** The body as the platform's webhook (its mapping reads any JSON value), or why it is not JSON. */
function readBody(platform: VoicePlatform, body: Buffer): DeliveryBody {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (err) {
    return { unreadable: (err as Error).message };
  }
  return { mapping: mapPlatformWebhook(platform, json) };
}

/** What identifies the call in the body, kept as it is in the log so that a replay finds the same conversation. */
function identityOf(body: DeliveryBody, found: Interpretation): CallIdentity {
  const events = 'mapping' in body && body.mapping.result === 'mapped' ? body.mapping.events : [];
  const caller = events.map((event) => (event.data as { caller_number?: unknown }).caller_number).find((n): n is string => typeof n === 'string');
  return { platformCallId: found.platformCallId, platformAgentId: found.platformAgentId, callerNumber: caller ?? null };
}

function refusal(verdict: Parameters<typeof signatureRefusal>[0]): ApiFailure {
  const { code, message } = signatureRefusal(verdict);
  return apiFailure(code, message);
}

function deliveryWrite(input: DeliveryToProcess, found: Interpretation): DeliveryWrite {
  return {
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
}
