import { Inject, Injectable } from '@nestjs/common';
import { inTransaction } from '@voice/service-kit';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { ERASURE_BATCH, eraseConversations } from '../erase-conversations/erase-conversations.store.js';
import { ErasureNoticesPublisher } from '../erase-conversations/erasure-notices.publisher.js';
import { agentsWithRetention, claimAgentSweep, conversationsOlderThan, removeRecordings, type AgentRetention } from './retention.store.js';

/**
 * Applies each agent's retention every RETENTION_SWEEP_INTERVAL_MS: past `recordings_days` (from the call's start)
 * the recording URL is removed from the conversation (has_recording false); past `conversations_days` the
 * conversation is erased like an erasure request erases it, with a tombstone of reason `retention`. Bounded
 * batches (ERASURE_BATCH conversations per transaction), each agent swept by one replica at a time.
 */
@Injectable()
export class RetentionSweeper {
  private stopped = false;
  private loop?: Promise<void>;
  private wake?: () => void;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
    private readonly notices: ErasureNoticesPublisher,
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

  /** One sweep over every agent with a limit; resolves what it did. */
  async sweep(): Promise<{ recordings_removed: number; conversations_erased: number }> {
    const done = { recordings_removed: 0, conversations_erased: 0 };
    const agents = await inTransaction(this.ctx.dataSource, (runner) => agentsWithRetention(runner));
    for (const agent of agents) {
      if (agent.recordings_days !== null) done.recordings_removed += await this.inBatches(agent, agent.recordings_days, 'recordings');
      if (agent.conversations_days !== null) done.conversations_erased += await this.inBatches(agent, agent.conversations_days, 'conversations');
    }
    return done;
  }

  private async inBatches(agent: AgentRetention, days: number, what: 'recordings' | 'conversations'): Promise<number> {
    let total = 0;
    while (!this.stopped) {
      const changed = await inTransaction(this.ctx.dataSource, async (runner) => {
        if (!(await claimAgentSweep(runner, agent.agent_id))) return 0;
        const ids = await conversationsOlderThan(runner, agent, days, ERASURE_BATCH, what === 'recordings');
        if (ids.length === 0) return 0;
        return what === 'recordings' ? removeRecordings(runner, agent.account_id, ids) : eraseConversations(runner, agent.account_id, ids, 'retention');
      });
      if (changed === 0) break;
      total += changed;
      if (what === 'conversations') this.notices.nudge();
    }
    if (total > 0) this.ctx.logger.info({ agent_id: agent.agent_id, [`${what}_past_retention`]: total, days }, `retention: ${what} past the agent's limit removed`);
    return total;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await this.sleep(this.ctx.tuning.retentionSweepMs);
      if (this.stopped) break;
      try {
        await this.sweep();
      } catch (err) {
        this.ctx.logger.warn({ err }, 'retention sweep failed; it runs again at the next interval');
      }
    }
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
