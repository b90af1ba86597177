import { Inject, Injectable } from '@nestjs/common';
import { EventsHandler, type IEventHandler } from '@nestjs/cqrs';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { AgentsBecameKnown } from '../agent-directory/agents-became-known.event.js';
import { SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { ConversationChangesPublisher } from '../publish-conversation-changes/conversation-changes.publisher.js';
import { replayParkedChunk, type ChunkReport } from './replay-parked-events.handler.js';
import { knownAgentsWithParkedEvents } from './replay-parked-events.store.js';

export interface ReplayerOptions {
  dataSource: DataSource;
  logger: Logger;
  chunk: number;
  sweepMs: number;
}

/**
 * Replays parked events of known agents in the background: right after an agent
 * event (`wake`), and every `sweepMs` for any known agent that still has parked
 * events. One chunk at a time per process, agents taking turns chunk by chunk, so
 * a large backlog does not hold up a newly known agent's few events.
 */
@Injectable()
export class ParkedEventsReplayer {
  private readonly pending = new Set<string>();
  private sweepDue = false;
  private stopped = true;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  private readonly options: ReplayerOptions;

  constructor(
    @Inject(SERVICE_CONTEXT) ctx: ServiceContext,
    private readonly changes: ConversationChangesPublisher,
  ) {
    this.options = { dataSource: ctx.dataSource, logger: ctx.logger, chunk: ctx.tuning.parkedReplayChunk, sweepMs: ctx.tuning.parkedSweepMs };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.sweep(), this.options.sweepMs);
    this.timer.unref();
    this.sweep();
  }

  /** Replay these agents' parked events soon (they were just made known). */
  wake(agentIds: Iterable<string>): void {
    for (const id of agentIds) this.pending.add(id);
    this.kick();
  }

  /** Look for known agents with parked events now. */
  sweep(): void {
    this.sweepDue = true;
    this.kick();
  }

  /** Stop, after the chunk under way (if any) has committed. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private kick(): void {
    if (this.stopped || this.running) return;
    this.running = this.drain()
      .catch((err) => this.options.logger.error({ err }, 'parked call-event replay failed'))
      .finally(() => {
        this.running = undefined;
        if (this.pending.size > 0 || this.sweepDue) this.kick();
      });
  }

  private async drain(): Promise<void> {
    const { dataSource, logger, chunk } = this.options;
    const active = new Set<string>();
    while (!this.stopped) {
      for (const id of this.pending) active.add(id);
      this.pending.clear();
      if (active.size === 0) {
        if (!this.sweepDue) return;
        this.sweepDue = false;
        try {
          for (const id of await knownAgentsWithParkedEvents(dataSource)) active.add(id);
        } catch (err) {
          logger.warn({ err }, 'could not look for parked call events of known agents; next sweep retries');
          return;
        }
        if (active.size === 0) return;
      }
      for (const agentId of [...active]) {
        if (this.stopped) return;
        try {
          const report = await replayParkedChunk(dataSource, agentId, chunk);
          this.changes.enqueue(report.changes);
          if (report.taken < chunk) active.delete(agentId);
          this.log(agentId, report);
        } catch (err) {
          active.delete(agentId);
          logger.warn({ err, agent_id: agentId }, 'replaying parked call events failed; rolled back, the next sweep retries');
        }
      }
    }
  }

  private log(agentId: string, report: ChunkReport): void {
    const { logger } = this.options;
    if (report.taken === 0) return;
    logger.info({ agent_id: agentId, ...report.counts }, `recorded ${report.taken} parked call events of an agent now known`);
    for (const r of report.refused) logger.warn(r, 'parked call event of a call the agent does not answer; dropped');
    for (const f of report.failed) logger.error(f, 'parked call event could not be recorded on its own; moved to failed_parked_call_events');
  }
}

/** Agents just made known (their transaction committed): replay what was parked for them now rather than at the next sweep. */
@EventsHandler(AgentsBecameKnown)
export class ReplayWhenAgentsBecomeKnown implements IEventHandler<AgentsBecameKnown> {
  constructor(private readonly replayer: ParkedEventsReplayer) {}

  handle(event: AgentsBecameKnown): void {
    this.replayer.wake(event.agentIds);
  }
}
