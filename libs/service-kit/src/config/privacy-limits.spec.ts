import { describe, expect, it } from '@jest/globals';
import { environment, readConfig } from './config.js';

/** The operator's privacy limits: raw webhook bodies at most 30 days, CALL_EVENTS' maximum age. */
describe('WEBHOOK_DELIVERY_RETENTION_DAYS and CALL_EVENTS_MAX_AGE_MS', () => {
  const read = (env: Record<string, string>) => {
    const config = readConfig(env);
    return { days: environment.webhookRetentionDays(config), maxAgeMs: environment.callEventsMaxAgeMs(config), done: () => config.done() };
  };

  it('are unset by default (30 days, 7 days) and take what is set within range', () => {
    expect(read({})).toMatchObject({ days: undefined, maxAgeMs: undefined });
    expect(read({ WEBHOOK_DELIVERY_RETENTION_DAYS: '7', CALL_EVENTS_MAX_AGE_MS: '86400000' })).toMatchObject({ days: 7, maxAgeMs: 86_400_000 });
  });

  it.each(['31', '3650', '0'])('refuse a delivery log kept %s days: raw bodies are kept at most 30', (value) => {
    expect(read({ WEBHOOK_DELIVERY_RETENTION_DAYS: value }).done).toThrow(`WEBHOOK_DELIVERY_RETENTION_DAYS must be an integer from 1 to 30 (got "${value}")`);
  });

  it.each(['59999', '31536000001', 'week'])('refuse a CALL_EVENTS max age of %s', (value) => {
    expect(read({ CALL_EVENTS_MAX_AGE_MS: value }).done).toThrow(`CALL_EVENTS_MAX_AGE_MS must be an integer from 60000 to 31536000000 (got "${value}")`);
  });
});
