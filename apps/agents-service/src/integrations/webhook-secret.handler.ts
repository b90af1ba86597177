import { Inject, Injectable } from '@nestjs/common';
import { MAX_ID_LENGTH, type WebhookSecretReply } from '@voice/contracts';
import { IntegrationStore } from './integration.store.js';
import { INTEGRATIONS_SETTINGS, secretContext, type IntegrationsSettings } from './integrations.settings.js';

/**
 * The opened webhook secret of an integration, for the gateway's signature check. The secret leaves
 * this service only on this internal request (never in an API answer or a log line); an id that is
 * not an integration answers `integration: null`, like any other.
 */
@Injectable()
export class WebhookSecretHandler {
  constructor(
    private readonly store: IntegrationStore,
    @Inject(INTEGRATIONS_SETTINGS) private readonly settings: IntegrationsSettings,
  ) {}

  async execute(integrationId: unknown): Promise<WebhookSecretReply> {
    if (typeof integrationId !== 'string' || integrationId.length === 0 || integrationId.length > MAX_ID_LENGTH) return { integration: null };
    const row = await this.store.findSealedWebhookSecret(integrationId);
    if (!row) return { integration: null };
    const webhook_secret = this.settings.secretBox.open(row.webhook_secret_sealed, secretContext(row.account_id, row.platform, 'webhook_secret'));
    return { integration: { id: row.id, account_id: row.account_id, platform: row.platform, webhook_secret } };
  }
}
