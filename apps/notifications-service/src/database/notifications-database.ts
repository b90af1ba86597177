import { CreateNotificationsSchema1765000000000 } from './migrations/1765000000000-create-notifications-schema.js';
import { EndpointSecretRotation1765100000000 } from './migrations/1765100000000-endpoint-secret-rotation.js';
import { EndpointFailureStreak1765200000000 } from './migrations/1765200000000-endpoint-failure-streak.js';
import { DeliveryWindow1765300000000 } from './migrations/1765300000000-delivery-window.js';
import { ErasedConversations1765700000000 } from './migrations/1765700000000-erased-conversations.js';
import { DeliveriesClaimIndexes1765450000000 } from './migrations/1765450000000-deliveries-claim-indexes.js';
import { AttemptsInDeliveryRow1765800000000 } from './migrations/1765800000000-attempts-in-delivery-row.js';

/** The PostgreSQL schema notifications-service owns; nothing else writes to it. */
export const NOTIFICATIONS_SCHEMA = 'notifications';

export const notificationsMigrations = [
  CreateNotificationsSchema1765000000000, EndpointSecretRotation1765100000000, EndpointFailureStreak1765200000000, DeliveryWindow1765300000000,
  DeliveriesClaimIndexes1765450000000, ErasedConversations1765700000000, AttemptsInDeliveryRow1765800000000,
];
