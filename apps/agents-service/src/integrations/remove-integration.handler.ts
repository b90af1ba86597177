import { Injectable } from '@nestjs/common';
import { fail, ServiceFailure } from '@voice/service-kit';
import { unknownPlatformProblem } from './integration.rules.js';
import { IntegrationStore } from './integration.store.js';

/** DELETE /v1/integrations/{platform}: refused while live agents of the account use the platform. */
@Injectable()
export class RemoveIntegrationHandler {
  constructor(private readonly store: IntegrationStore) {}

  async execute(accountId: string, platform: unknown): Promise<void> {
    const unknown = unknownPlatformProblem(platform);
    if (unknown) throw new ServiceFailure(unknown);
    const outcome = await this.store.removeUnlessInUse(accountId, platform as string);
    if (outcome.kind === 'not_found') fail('not_found', `No ${String(platform)} integration is configured for this account.`);
    if (outcome.kind === 'in_use') {
      fail('integration_in_use', `The ${String(platform)} integration is used by ${outcome.liveAgents} live agent(s) of this account; delete them first.`, {
        current: outcome.liveAgents,
      });
    }
  }
}
