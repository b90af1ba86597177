import { Injectable } from '@nestjs/common';
import type { IntegrationListReply, IntegrationReply } from '@voice/contracts';
import { fail, ServiceFailure } from '@voice/service-kit';
import { unknownPlatformProblem } from './integration.rules.js';
import { IntegrationStore } from './integration.store.js';

/** GET /v1/integrations and GET /v1/integrations/{platform}: never touches the secrets. */
@Injectable()
export class GetIntegrationsHandler {
  constructor(private readonly store: IntegrationStore) {}

  async one(accountId: string, platform: unknown): Promise<IntegrationReply> {
    const unknown = unknownPlatformProblem(platform);
    if (unknown) throw new ServiceFailure(unknown);
    const integration = await this.store.find(accountId, platform as string);
    if (!integration) fail('not_found', `No ${String(platform)} integration is configured for this account.`);
    return { integration };
  }

  async list(accountId: string): Promise<IntegrationListReply> {
    return { items: await this.store.list(accountId) };
  }
}
