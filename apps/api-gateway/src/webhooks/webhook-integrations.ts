import { Injectable } from '@nestjs/common';
import { IntegrationsRpc, type WebhookSecretReply, type WebhookSecretRequest } from '@voice/contracts';
import { ServiceClient } from '../rpc/service-client.js';
import { RecentAnswers } from '../caching/recent-answers.js';

export type WebhookIntegration = NonNullable<WebhookSecretReply['integration']>;

/** A known integration's secret is reused this long; a verification failure with a cached secret asks again (rotation). */
const KNOWN_TTL_MS = 30_000;
/** ...but not more often than this: a flood of badly signed requests must not become a flood of service requests. */
const MIN_REFRESH_MS = 1_000;
/** An unknown id is remembered briefly, so a burst of probes does not become a burst of service requests. */
const UNKNOWN_TTL_MS = 5_000;
/** Bounds the memory a flood of random ids can take: the oldest entries go first. */
const MAX_ENTRIES = 10_000;


/**
 * Webhook secrets by integration id, from agents-service (which keeps them sealed), cached in memory
 * only: never written anywhere by the gateway, never logged.
 */
@Injectable()
export class WebhookIntegrations {
  private readonly cache = new RecentAnswers<WebhookIntegration | null>(MAX_ENTRIES);

  constructor(private readonly services: ServiceClient) {}

  /** The integration, and whether the answer came from the cache (so a failed check may ask again). */
  async find(integrationId: string, requestId: string, options: { fresh?: boolean } = {}): Promise<{ integration: WebhookIntegration | null; cached: boolean }> {
    const now = Date.now();
    const entry = this.cache.get(integrationId, now);
    const fresh = entry && entry.ageMs < (options.fresh ? MIN_REFRESH_MS : entry.value ? KNOWN_TTL_MS : UNKNOWN_TTL_MS);
    if (fresh) return { integration: entry.value, cached: true };
    const request: WebhookSecretRequest = { integration_id: integrationId };
    const { integration } = await this.services.send<WebhookSecretReply>(IntegrationsRpc.webhookSecret, request, { requestId });
    this.cache.remember(integrationId, integration, now);
    return { integration, cached: false };
  }
}
