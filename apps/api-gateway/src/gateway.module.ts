import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { MessageStreams } from '@voice/service-kit';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { AccountsStore } from './accounts/accounts.store.js';
import { AdminAccountsController } from './accounts/admin-accounts.controller.js';
import { AgentsController } from './agents/agents.controller.js';
import { ApiKeysController } from './api-keys/api-keys.controller.js';
import { AgentEventsAudit } from './audit/agent-events-audit.consumer.js';
import { AuditEventsController } from './audit/audit-events.controller.js';
import { AuditEventsStore } from './audit/audit-events.store.js';
import { AuditLog } from './audit/audit-log.js';
import { AuditRetention } from './audit/audit-retention.js';
import { DataRequestEventsAudit } from './audit/data-request-events-audit.consumer.js';
import { AccessGuard } from './auth/access.guard.js';
import { ApiKeysStore } from './auth/api-keys.store.js';
import { CallEventPublisher } from './call-events/call-event-publisher.js';
import { CallEventsController } from './call-events/call-events.controller.js';
import { ConversationsController } from './conversations/conversations.controller.js';
import { DataRequestsController } from './data-requests/data-requests.controller.js';
import { DeliveryLogErasure } from './erase-conversations/delivery-log-erasure.js';
import { ConversationStreams } from './conversation-stream/conversation-streams.js';
import { StreamLeasesStore } from './conversation-stream/stream-leases.store.js';
import { HealthController } from './health/health.controller.js';
import { IntegrationsController } from './integrations/integrations.controller.js';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor.js';
import { IdempotencyRetention } from './idempotency/idempotency-retention.js';
import { IdempotencyStore } from './idempotency/idempotency.store.js';
import { DocsController, OpenApiDocumentHolder } from './openapi/docs.controller.js';
import { RateLimiter } from './rate-limits/rate-limiter.js';
import { RateLimitsStore } from './rate-limits/rate-limits.store.js';
import { ServiceClient } from './rpc/service-client.js';
import { WebhookDeliveriesController } from './webhooks/webhook-deliveries.controller.js';
import { WebhookDeliveriesStore } from './webhooks/webhook-deliveries.store.js';
import { WebhookIngestHandler } from './webhooks/webhook-ingest.handler.js';
import { WebhookIntegrations } from './webhooks/webhook-integrations.js';
import { PlatformAgentDirectory } from './webhooks/platform-agent-directory.js';
import { DeliveryRetention } from './webhooks/delivery-retention.js';
import { WebhooksController } from './webhooks/webhooks.controller.js';
import { EndpointDeliveriesController } from './webhook-endpoints/endpoint-deliveries.controller.js';
import { EventsController } from './webhook-endpoints/events.controller.js';
import { WebhookEndpointsController } from './webhook-endpoints/webhook-endpoints.controller.js';
import { BUS_PROBE, DATA_SOURCE, GATEWAY_SETTINGS, LOGGER, MESSAGE_STREAMS, RPC_CLIENT, type BusProbe, type GatewaySettings, type RpcSender } from './tokens.js';

export interface GatewayResources {
  settings: GatewaySettings;
  dataSource: DataSource;
  rpc: RpcSender;
  streams: MessageStreams;
  busProbe: BusProbe;
  logger: Logger;
}

/** Admin routes exist only when an admin token is configured; otherwise they are plain unknown routes. */
export function gatewayControllers(settings: GatewaySettings): Type[] {
  return [
    HealthController,
    AgentsController,
    ConversationsController,
    DataRequestsController,
    CallEventsController,
    ApiKeysController,
    IntegrationsController,
    WebhooksController,
    WebhookDeliveriesController,
    WebhookEndpointsController,
    EndpointDeliveriesController,
    EventsController,
    AuditEventsController,
    ...(settings.adminToken ? [AdminAccountsController] : []),
    DocsController,
  ];
}

@Module({})
export class GatewayModule {
  static forRoot(resources: GatewayResources): DynamicModule {
    return {
      module: GatewayModule,
      controllers: gatewayControllers(resources.settings),
      providers: [
        { provide: GATEWAY_SETTINGS, useValue: resources.settings },
        { provide: DATA_SOURCE, useValue: resources.dataSource },
        { provide: RPC_CLIENT, useValue: resources.rpc },
        { provide: MESSAGE_STREAMS, useValue: resources.streams },
        { provide: BUS_PROBE, useValue: resources.busProbe },
        { provide: LOGGER, useValue: resources.logger },
        { provide: APP_GUARD, useClass: AccessGuard },
        ApiKeysStore,
        AccountsStore,
        ServiceClient,
        CallEventPublisher,
        WebhookDeliveriesStore,
        WebhookIntegrations,
        PlatformAgentDirectory,
        WebhookIngestHandler,
        DeliveryRetention,
        DeliveryLogErasure,
        OpenApiDocumentHolder,
        IdempotencyStore,
        IdempotencyInterceptor,
        IdempotencyRetention,
        RateLimitsStore,
        RateLimiter,
        StreamLeasesStore,
        ConversationStreams,
        AuditEventsStore,
        AuditLog,
        AuditRetention,
        AgentEventsAudit,
        DataRequestEventsAudit,
      ],
    };
  }
}
