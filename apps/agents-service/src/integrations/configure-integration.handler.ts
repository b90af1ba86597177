import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_PLATFORM_BASE_URLS, findConfigureIntegrationProblem, integrationWebhookUrl, type ConfigureIntegrationPayload,
  type ConfigureIntegrationRequest, type IntegrationReply,
} from '@voice/contracts';
import { checkOutboundUrl, secretHint, ServiceFailure } from '@voice/service-kit';
import { randomBytes } from 'node:crypto';
import { PlatformCallFailed } from '@voice/voice-platforms';
import { VOICE_PLATFORM_ADAPTERS, type VoicePlatformAdapters } from '@voice/voice-platforms';
import { credentialsVerdict, notEnabledProblem, refusedBaseUrlProblem, unknownPlatformProblem } from './integration.rules.js';
import { IntegrationStore } from './integration.store.js';
import { INTEGRATIONS_SETTINGS, secretContext, type IntegrationsSettings } from './integrations.settings.js';

/**
 * PUT /v1/integrations/{platform}: validate, refuse an internal base URL, check
 * the key once against the platform, then seal and store (create or replace).
 * A refused key or URL saves nothing; an unreachable platform saves the
 * integration as `unreachable`.
 */
@Injectable()
export class ConfigureIntegrationHandler {
  constructor(
    private readonly store: IntegrationStore,
    @Inject(VOICE_PLATFORM_ADAPTERS) private readonly adapters: VoicePlatformAdapters,
    @Inject(INTEGRATIONS_SETTINGS) private readonly settings: IntegrationsSettings,
  ) {}

  async execute({ account, platform, body, public_url: publicUrl }: ConfigureIntegrationRequest): Promise<IntegrationReply> {
    const unknown = unknownPlatformProblem(platform);
    if (unknown) throw new ServiceFailure(unknown);
    const voicePlatform = platform as keyof typeof DEFAULT_PLATFORM_BASE_URLS;
    const notEnabled = notEnabledProblem(account, voicePlatform);
    if (notEnabled) throw new ServiceFailure(notEnabled);
    const problem = findConfigureIntegrationProblem(body);
    if (problem) throw new ServiceFailure(problem);
    const payload = body as ConfigureIntegrationPayload;
    const baseUrl = payload.base_url ?? DEFAULT_PLATFORM_BASE_URLS[voicePlatform];

    const check = await checkOutboundUrl(baseUrl, { allowPrivate: this.settings.allowPrivate });
    if (!check.ok && check.kind !== 'unresolvable') throw new ServiceFailure(refusedBaseUrlProblem(check.problem));

    let failure: PlatformCallFailed | undefined;
    if (check.ok) {
      try {
        await this.adapters.for(voicePlatform).verifyCredentials({ baseUrl, apiKey: payload.api_key });
      } catch (error) {
        if (!(error instanceof PlatformCallFailed)) throw error;
        failure = error;
      }
    } else {
      failure = new PlatformCallFailed(voicePlatform, { kind: 'transient', message: check.problem });
    }
    const verdict = credentialsVerdict(voicePlatform, failure);
    if ('refuse' in verdict) throw new ServiceFailure(verdict.refuse);

    const box = this.settings.secretBox;
    const newId = `int_${randomBytes(12).toString('hex')}`;
    const existing = await this.store.find(account.id, voicePlatform);
    const integration = await this.store.save({
      newId,
      webhookUrl: typeof publicUrl === 'string' && publicUrl !== '' ? integrationWebhookUrl(publicUrl, voicePlatform, existing?.id ?? newId) : null,
      accountId: account.id,
      platform: voicePlatform,
      baseUrl,
      apiKeySealed: box.seal(payload.api_key, secretContext(account.id, voicePlatform, 'api_key')),
      webhookSecretSealed: box.seal(payload.webhook_secret, secretContext(account.id, voicePlatform, 'webhook_secret')),
      apiKeyHint: secretHint(payload.api_key),
      webhookSecretHint: secretHint(payload.webhook_secret),
      status: verdict.save,
    });
    return { integration };
  }
}

