import { Module, type DynamicModule } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HealthMessageController } from './health/health.message.controller.js';
import { WebhookEndpointsHandler } from './webhook-endpoints/webhook-endpoints.handler.js';
import { WebhookEndpointsMessageController } from './webhook-endpoints/webhook-endpoints.message.controller.js';
import { ENDPOINTS_SETTINGS, type EndpointsSettings } from './webhook-endpoints/webhook-endpoints.settings.js';
import { WebhookEndpointsStore } from './webhook-endpoints/webhook-endpoints.store.js';

export interface NotificationsModuleDependencies {
  dataSource: DataSource;
  endpoints: EndpointsSettings;
}

@Module({})
export class NotificationsModule {
  static register(deps: NotificationsModuleDependencies): DynamicModule {
    return {
      module: NotificationsModule,
      controllers: [WebhookEndpointsMessageController, HealthMessageController],
      providers: [
        { provide: DataSource, useValue: deps.dataSource },
        { provide: ENDPOINTS_SETTINGS, useValue: deps.endpoints },
        WebhookEndpointsStore,
        WebhookEndpointsHandler,
      ],
    };
  }
}
