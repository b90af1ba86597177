import type { DataSource } from 'typeorm';
import { openDatabase } from '@voice/service-kit';
import { CreateAccountsAndApiKeys1763800000000 } from './migrations/1763800000000-create-accounts-and-api-keys.js';
import { TypedTextIds1763800100000 } from './migrations/1763800100000-typed-text-ids.js';

export const GATEWAY_SCHEMA = 'gateway';

export function openGatewayDatabase(url: string): Promise<DataSource> {
  return openDatabase({
    url,
    schema: GATEWAY_SCHEMA,
    migrations: [CreateAccountsAndApiKeys1763800000000, TypedTextIds1763800100000],
    applicationName: 'api-gateway',
  });
}
