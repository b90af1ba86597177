import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import { MAX_ID_LENGTH, VOICE_PLATFORMS } from '@voice/contracts';
import { Public } from '../auth/access.decorators.js';
import { success } from '../http/envelope.js';
import { requestIdOf } from '../http/gateway-request.js';
import { ApiEnvelope, ApiErrors, ApiJsonBody, ApiRoute } from '../openapi/route-docs.js';
import { ref } from '../openapi/json-schema.js';
import { WebhookIngestHandler } from './webhook-ingest.handler.js';

/**
 * The webhook URLs given to the platforms (an integration's webhook_url). No API key: the signature,
 * made with the integration's webhook secret over the raw body, is the authentication.
 */
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly ingest: WebhookIngestHandler) {}

  @Post('platform_a/:integration_id')
  @Public()
  @HttpCode(200)
  @ApiRoute(
    'Webhooks',
    'Receive a platform_a webhook',
    'Signed with `X-Platform-A-Signature: v=<Unix ms>,d=<hex HMAC-SHA256(webhook secret, raw body + timestamp digits)>`. ' +
      'Bodies up to 10 MiB. 200 once the delivery is recorded and its call events are durably queued (also for deliveries with nothing to record: see the delivery log); ' +
      '401 invalid_signature for a missing or wrong signature or an unknown integration, 401 stale_timestamp beyond 5 minutes; 503 when it could not be made durable (retry).',
  )
  @ApiParam({ name: 'integration_id', required: true, description: 'The integration id in the webhook URL.', schema: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH } })
  @ApiJsonBody(ref('PlatformAWebhook'))
  @ApiEnvelope(200, 'WebhookReceipt', { description: 'Recorded (see outcome).' })
  @ApiErrors('invalid_signature', 'stale_timestamp', 'payload_too_large')
  receivePlatformA(@Req() req: Request, @Param('integration_id') integrationId: string) {
    return this.receive(req, 'platform_a', integrationId);
  }

  @Post('platform_b/:integration_id')
  @Public()
  @HttpCode(200)
  @ApiRoute(
    'Webhooks',
    'Receive a platform_b webhook',
    'Signed with `X-Timestamp: <Unix s>` and `X-Signature: <hex HMAC-SHA256(webhook secret, "<X-Timestamp>.<raw body>")>`. Answers as for platform_a.',
  )
  @ApiParam({ name: 'integration_id', required: true, description: 'The integration id in the webhook URL.', schema: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH } })
  @ApiJsonBody(ref('PlatformBWebhook'))
  @ApiEnvelope(200, 'WebhookReceipt', { description: 'Recorded (see outcome).' })
  @ApiErrors('invalid_signature', 'stale_timestamp', 'payload_too_large')
  receivePlatformB(@Req() req: Request, @Param('integration_id') integrationId: string) {
    return this.receive(req, 'platform_b', integrationId);
  }

  private async receive(req: Request, platform: (typeof VOICE_PLATFORMS)[number], integrationId: string) {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const delivery = await this.ingest.receive(platform, integrationId, body, req.headers, requestIdOf(req));
    return success(req, { delivery_id: delivery.id, outcome: delivery.outcome, reason: delivery.reason });
  }
}
