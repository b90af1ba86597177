import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { HourlyPrune } from '../maintenance/hourly-prune.js';
import { LOGGER } from '../tokens.js';
import { IdempotencyStore } from './idempotency.store.js';

/** Deletes Idempotency-Keys whose 24 hours are over. Correctness does not depend on it: a claim forgets an expired key of its own first. */
@Injectable()
export class IdempotencyRetention extends HourlyPrune {
  constructor(
    private readonly keys: IdempotencyStore,
    @Inject(LOGGER) logger: Logger,
  ) {
    super(logger, 'idempotency keys past their 24 hours');
  }

  protected prune(): Promise<number> {
    return this.keys.prune();
  }
}
