import { Inject, Injectable } from '@nestjs/common';
import { inTransaction, isTransientFailure } from '@voice/service-kit';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { toDetail, toIso } from '../conversation/conversation.views.js';
import {
  conversationsOfCaller, countConversationsOfCaller, ERASURE_BATCH, eraseConversations, parkedConversationsOfCaller,
} from '../erase-conversations/erase-conversations.store.js';
import { ErasureNoticesPublisher } from '../erase-conversations/erasure-notices.publisher.js';
import { DataRequestEventsPublisher } from './data-request-events.publisher.js';
import {
  claimNextDataRequest, completeDataRequest, conversationsDone, conversationsOfCallerAfter, deleteExpiredExports, failDataRequest, holdLease, insertExportDocuments,
  recordProgress, type ClaimedRequest,
} from './data-requests.store.js';

/** Conversations copied into an access document per transaction (each a whole detail with its transcript). */
const EXPORT_BATCH = 100;
/** A request failing this many steps in a row for a reason that is not of the moment is settled as failed. */
const MAX_FAILED_STEPS = 5;
const EXPORT_PRUNE_EVERY_MS = 60_000;

type Step = 'more' | 'done' | 'lost';

/**
 * Works through data requests in PostgreSQL, one bounded transaction per step (ERASURE_BATCH conversations
 * erased, or EXPORT_BATCH exported), so a request of any size never holds many locks for long and ingest goes
 * on beside it. A replica claims the oldest open request with SKIP LOCKED and a lease it renews in every step;
 * a request whose holder died (kill -9) is taken over when the lease runs out, and goes on where the last committed
 * step left it: an erasure from what is left of the caller's conversations, an export from its cursor. Steps are
 * idempotent (erasing what is gone erases nothing; a document is written by conversation id).
 */
@Injectable()
export class DataRequestsWorker {
  private readonly worker = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private stopped = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private prunedAt = 0;
  private readonly failedSteps = new Map<string, number>();

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
    private readonly notices: ErasureNoticesPublisher,
    private readonly settlements: DataRequestEventsPublisher,
  ) {}

  start(): void {
    this.stopped = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  /** A request was just created: look now rather than at the next poll. */
  nudge(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const claimed = await claimNextDataRequest(this.ctx.dataSource, this.worker, this.ctx.tuning.dataRequestLeaseMs);
        if (claimed) {
          await this.work(claimed);
          continue;
        }
        if (Date.now() - this.prunedAt >= EXPORT_PRUNE_EVERY_MS) {
          this.prunedAt = Date.now();
          const deleted = await deleteExpiredExports(this.ctx.dataSource);
          if (deleted > 0) this.ctx.logger.info({ documents: deleted }, 'access documents past their 24 hours deleted');
        }
      } catch (err) {
        this.ctx.logger.warn({ err }, 'data requests: claim failed; trying again');
      }
      await this.sleep(this.ctx.tuning.dataRequestPollMs);
    }
  }

  private async work(request: ClaimedRequest): Promise<void> {
    let cursor = request.export_cursor ?? '';
    while (!this.stopped) {
      let step: Step;
      try {
        if (request.type === 'erasure') step = await this.eraseStep(request);
        else ({ step, cursor } = await this.exportStep(request, cursor));
        this.failedSteps.delete(request.id);
      } catch (err) {
        const failures = (this.failedSteps.get(request.id) ?? 0) + 1;
        this.failedSteps.set(request.id, failures);
        if (!isTransientFailure(err) && failures >= MAX_FAILED_STEPS) {
          this.ctx.logger.error({ err, data_request_id: request.id }, 'data request failed');
          this.failedSteps.delete(request.id);
          await failDataRequest(this.ctx.dataSource, request.id, this.worker, err instanceof Error ? err.message : String(err));
          this.settlements.nudge();
        } else {
          this.ctx.logger.warn({ err, data_request_id: request.id, failures }, 'data request step failed; it is tried again when its lease runs out');
        }
        return;
      }
      if (step === 'done') this.settlements.nudge();
      if (step === 'lost') this.ctx.logger.warn({ data_request_id: request.id }, 'data request taken over by another replica');
      if (step !== 'more') return;
    }
  }

  /** Erase the next batch of the caller's conversations; the last step erases what is still parked and completes. */
  private async eraseStep(request: ClaimedRequest): Promise<Step> {
    const { id, account_id: accountId, caller_number: caller } = request;
    const step = await inTransaction(this.ctx.dataSource, async (runner): Promise<Step> => {
      if (!(await holdLease(runner, id, this.worker, this.ctx.tuning.dataRequestLeaseMs))) return 'lost';
      const remaining = await countConversationsOfCaller(runner, accountId, caller);
      const ids = await conversationsOfCaller(runner, accountId, caller, ERASURE_BATCH);
      if (ids.length === 0) {
        await eraseConversations(runner, accountId, await parkedConversationsOfCaller(runner, accountId, caller), 'erasure_request');
        await completeDataRequest(runner, id, 'erasure');
        return 'done';
      }
      const erased = await eraseConversations(runner, accountId, ids, 'erasure_request');
      await recordProgress(runner, id, { done: erased, found: (await conversationsDone(runner, id)) + remaining });
      return 'more';
    });
    this.notices.nudge();
    // A read of the account after the erasure (the client saw the request complete) must not find the erased calls on a replica behind.
    if (step !== 'lost') await this.ctx.reads.wrote(accountId);
    if (step === 'done') this.ctx.logger.info({ data_request_id: id }, 'erasure request completed');
    return step;
  }

  /** Copy the next batch of the caller's conversations into the document; the last step completes it for 24 hours. */
  private async exportStep(request: ClaimedRequest, cursor: string): Promise<{ step: Step; cursor: string }> {
    const { id, account_id: accountId, caller_number: caller } = request;
    return inTransaction(this.ctx.dataSource, async (runner) => {
      if (!(await holdLease(runner, id, this.worker, this.ctx.tuning.dataRequestLeaseMs))) return { step: 'lost' as const, cursor };
      const rows = await conversationsOfCallerAfter(runner, accountId, caller, cursor, EXPORT_BATCH);
      if (rows.length === 0) {
        await completeDataRequest(runner, id, 'access');
        return { step: 'done' as const, cursor };
      }
      await insertExportDocuments(runner, id, accountId, rows.map((row) => ({
        id: row.id,
        document: toDetail(row.state, { name: row.agent_name, voice_platform: row.voice_platform }, { created_at: toIso(row.created_at), updated_at: toIso(row.updated_at) }),
      })));
      const next = rows[rows.length - 1].id;
      const after = await countConversationsOfCaller(runner, accountId, caller, next);
      await recordProgress(runner, id, { done: rows.length, found: (await conversationsDone(runner, id)) + rows.length + after, cursor: next });
      return { step: 'more' as const, cursor: next };
    });
  }

  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }
}
