import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { HourlyPrune } from '../maintenance/hourly-prune.js';
import { LOGGER } from '../tokens.js';
import { AuditEventsStore } from './audit-events.store.js';
import { AUDIT_RETENTION_DAYS } from './audit.rules.js';

/** Deletes audit entries past their year (the only DELETE the table's trigger lets through). */
@Injectable()
export class AuditRetention extends HourlyPrune {
  constructor(
    private readonly store: AuditEventsStore,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(logger, 'audit events past their 365 days');
  }

  protected prune(): Promise<number> {
    return this.store.prune(AUDIT_RETENTION_DAYS);
  }
}
