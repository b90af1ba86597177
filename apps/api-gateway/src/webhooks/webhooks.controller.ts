import { Controller, HttpCode, NotFoundException, Param, Post, Req } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { MAX_ID_LENGTH, type VoicePlatform } from '@voice/contracts';
import { VOICE_PLATFORM_DEFINITIONS, voicePlatform } from '@voice/voice-platforms';
import { Public } from '../auth/access.decorators.js';
import { success } from '../http/envelope.js';
import { requestIdOf } from '../http/gateway-request.js';
import { ServesPathValues } from '../http/route-table.js';
import { ApiEnvelope, ApiErrors, ApiPerPathValue, ApiRoute } from '../openapi/route-docs.js';
import { ref } from '../openapi/json-schema.js';
import { WebhookIngestHandler } from './webhook-ingest.handler.js';

const REGISTERED_PLATFORMS: readonly VoicePlatform[] = Object.values(VOICE_PLATFORM_DEFINITIONS).map((definition) => definition.platform);

/** The registered platform a path names (paths match case-insensitively, as every route does), if any. */
function registeredPlatform(name: string): VoicePlatform | undefined {
  return REGISTERED_PLATFORMS.find((platform) => platform === name.toLowerCase());
}

/**
 * The webhook URLs given to the platforms (an integration's webhook_url), one per registered platform. No API
 * key: the signature, made with the integration's webhook secret over the raw body, is the authentication.
 */
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly ingest: WebhookIngestHandler) {}

  @Post(':platform/:integration_id')
  @ServesPathValues('platform', REGISTERED_PLATFORMS)
  @Public()
  @HttpCode(200)
  @ApiRoute('Webhooks', 'Receive a platform webhook')
  @ApiPerPathValue((platform) => {
    const definition = voicePlatform(platform as VoicePlatform);
    return {
      summary: `Receive a ${platform} webhook`,
      description:
        `${definition.webhookSignatureDoc} ` +
        'Bodies up to 10 MiB. 200 once the delivery is recorded and its call events are durably queued (also for deliveries with nothing to record: see the delivery log); ' +
        '401 invalid_signature for a missing or wrong signature or an unknown integration, 401 stale_timestamp beyond 5 minutes; 503 when it could not be made durable (retry).',
      body: ref(definition.webhookSchemaName),
    };
  })
  @ApiParam({ name: 'integration_id', required: true, description: 'The integration id in the webhook URL.', schema: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH } })
  @ApiEnvelope(200, 'WebhookReceipt', { description: 'Recorded (see outcome).' })
  @ApiErrors('invalid_signature', 'stale_timestamp', 'payload_too_large')
  async receive(@Req() req: FastifyRequest, @Param('platform') platformName: string, @Param('integration_id') integrationId: string) {
    // The route table answers route_not_found for any other platform before this runs; refused here as well.
    const platform = registeredPlatform(platformName);
    if (!platform) throw new NotFoundException();
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const delivery = await this.ingest.receive(platform, integrationId, body, req.headers, requestIdOf(req));
    return success(req, { delivery_id: delivery.id, outcome: delivery.outcome, reason: delivery.reason });
  }
}
