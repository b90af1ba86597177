import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { ReadRouter } from '@voice/service-kit';
import { AgentStore, COMMIT_LISTENER, type CommitListener } from './agent/agent.store.js';
import { CreateAgentHandler } from './create-agent/create-agent.handler.js';
import { CreateAgentMessageController } from './create-agent/create-agent.message.controller.js';
import { DeleteAgentHandler } from './delete-agent/delete-agent.handler.js';
import { DeleteAgentMessageController } from './delete-agent/delete-agent.message.controller.js';
import { GetAgentHandler } from './get-agent/get-agent.handler.js';
import { GetAgentMessageController } from './get-agent/get-agent.message.controller.js';
import { ConfigureIntegrationHandler } from './integrations/configure-integration.handler.js';
import { GetIntegrationsHandler } from './integrations/get-integrations.handler.js';
import { IntegrationStore } from './integrations/integration.store.js';
import { IntegrationsMessageController } from './integrations/integrations.message.controller.js';
import { WebhookSecretHandler } from './integrations/webhook-secret.handler.js';
import { FindPlatformAgentMessageController } from './find-platform-agent/find-platform-agent.message.controller.js';
import { FindPlatformAgentStore } from './find-platform-agent/find-platform-agent.store.js';
import { INTEGRATIONS_SETTINGS, type IntegrationsSettings } from './integrations/integrations.settings.js';
import { RemoveIntegrationHandler } from './integrations/remove-integration.handler.js';
import { HealthMessageController } from './health/health.message.controller.js';
import { ListAgentsHandler } from './list-agents/list-agents.handler.js';
import { ListAgentsMessageController } from './list-agents/list-agents.message.controller.js';
import { ListAgentsStore } from './list-agents/list-agents.store.js';
import { VOICE_PLATFORM_ADAPTERS, type VoicePlatformAdapters } from '@voice/voice-platforms';
import { PLATFORM_SYNC_SETTINGS, PlatformSyncHandler, type PlatformSyncSettings } from './platform-sync/platform-sync.handler.js';
import { PlatformSyncStore } from './platform-sync/platform-sync.store.js';
import { PlatformSyncWorker } from './platform-sync/platform-sync.worker.js';
import { PlatformReconciler } from './reconcile-platforms/platform-reconciler.js';
import { ReconcileStore } from './reconcile-platforms/reconcile.store.js';
import { UpdateAgentHandler } from './update-agent/update-agent.handler.js';
import { UpdateAgentMessageController } from './update-agent/update-agent.message.controller.js';
import { VerifyOwnershipMessageController } from './verify-ownership/verify-ownership.message.controller.js';

export interface AgentsModuleDependencies {
  dataSource: DataSource;
  /** Where reads of agents go: a read replica (DATABASE_READ_URL) or the primary. */
  reads: ReadRouter;
  commitListener: CommitListener;
  platformAdapters: VoicePlatformAdapters;
  integrations: IntegrationsSettings;
  platformSync: PlatformSyncSettings;
}

@Module({})
export class AgentsModule {
  static register(deps: AgentsModuleDependencies): DynamicModule {
    return {
      module: AgentsModule,
      imports: [CqrsModule.forRoot()],
      controllers: [
        CreateAgentMessageController,
        GetAgentMessageController,
        ListAgentsMessageController,
        UpdateAgentMessageController,
        DeleteAgentMessageController,
        VerifyOwnershipMessageController,
        FindPlatformAgentMessageController,
        IntegrationsMessageController,
        HealthMessageController,
      ],
      providers: [
        { provide: DataSource, useValue: deps.dataSource },
        { provide: ReadRouter, useValue: deps.reads },
        { provide: COMMIT_LISTENER, useValue: deps.commitListener },
        { provide: VOICE_PLATFORM_ADAPTERS, useValue: deps.platformAdapters },
        { provide: INTEGRATIONS_SETTINGS, useValue: deps.integrations },
        { provide: PLATFORM_SYNC_SETTINGS, useValue: deps.platformSync },
        AgentStore,
        ListAgentsStore,
        CreateAgentHandler,
        GetAgentHandler,
        ListAgentsHandler,
        UpdateAgentHandler,
        DeleteAgentHandler,
        IntegrationStore,
        ConfigureIntegrationHandler,
        GetIntegrationsHandler,
        RemoveIntegrationHandler,
        WebhookSecretHandler,
        FindPlatformAgentStore,
        PlatformSyncStore,
        PlatformSyncHandler,
        PlatformSyncWorker,
        ReconcileStore,
        PlatformReconciler,
      ],
    };
  }
}
