import { Module, type DynamicModule } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DeliveryLogHandler } from './delivery-log/delivery-log.handler.js';
import { DeliveryLogMessageController } from './delivery-log/delivery-log.message.controller.js';
import { DeliveryLogStore } from './delivery-log/delivery-log.store.js';
import { ListEventsMessageController } from './list-events/list-events.message.controller.js';
import { ListEventsStore } from './list-events/list-events.store.js';
import { DELIVERY_ATTEMPTS, type DeliveryAttempts } from './deliver-events/delivery.worker.js';
import { SendTestEventMessageController } from './send-test-event/send-test-event.message.controller.js';
import { SendTestEventStore } from './send-test-event/send-test-event.store.js';
import { HealthMessageController } from './health/health.message.controller.js';
import { WebhookEndpointsHandler } from './webhook-endpoints/webhook-endpoints.handler.js';
import { WebhookEndpointsMessageController } from './webhook-endpoints/webhook-endpoints.message.controller.js';
import { ENDPOINTS_SETTINGS, type EndpointsSettings } from './webhook-endpoints/webhook-endpoints.settings.js';
import { WebhookEndpointsStore } from './webhook-endpoints/webhook-endpoints.store.js';

export interface NotificationsModuleDependencies {
  dataSource: DataSource;
  endpoints: EndpointsSettings;
  /** The delivery worker: the test event's attempt is made and settled as every other. */
  attempts: DeliveryAttempts;
}

@Module({})
export class NotificationsModule {
  static register(deps: NotificationsModuleDependencies): DynamicModule {
    return {
      module: NotificationsModule,
      controllers: [WebhookEndpointsMessageController, DeliveryLogMessageController, ListEventsMessageController, SendTestEventMessageController, HealthMessageController],
      providers: [
        { provide: DataSource, useValue: deps.dataSource },
        { provide: ENDPOINTS_SETTINGS, useValue: deps.endpoints },
        WebhookEndpointsStore,
        WebhookEndpointsHandler,
        DeliveryLogStore,
        DeliveryLogHandler,
        ListEventsStore,
        SendTestEventStore,
        { provide: DELIVERY_ATTEMPTS, useValue: deps.attempts },
      ],
    };
  }
}
