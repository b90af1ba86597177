import { environment, type ConfigReader } from '@voice/service-kit';
import type { ServiceTuning } from './service-context.js';

/**
 * The service's tunables from the environment (CALL_EVENTS_ACK_WAIT_MS, CALL_EVENTS_BATCH_SIZE, STATS_MEMORY_MIN_ROWS,
 * STATS_MEMORY_BUDGET_MB, RETENTION_SWEEP_INTERVAL_MS, DATA_REQUEST_LEASE_MS), read the same way whether it runs as
 * its own process or inside `npm start`'s one process; unset ones are left out, so the service's defaults apply.
 */
export function conversationsTuningFrom(config: ConfigReader): Partial<ServiceTuning> {
  const tuning = {
    ackWaitMs: environment.callEventsAckWaitMs(config),
    batchSize: environment.callEventsBatchSize(config),
    statsMemoryMinRows: environment.statsMemoryMinRows(config),
    statsMemoryBudgetMb: environment.statsMemoryBudgetMb(config),
    retentionSweepMs: environment.retentionSweepIntervalMs(config),
    dataRequestLeaseMs: environment.dataRequestLeaseMs(config),
  };
  return Object.fromEntries(Object.entries(tuning).filter(([, value]) => value !== undefined)) as Partial<ServiceTuning>;
}
