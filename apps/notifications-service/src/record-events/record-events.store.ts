import { Injectable } from '@nestjs/common';
import type { AgentStreamMessage, ConversationChange, OutboundEvent } from '@voice/contracts';
import { randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { agentStreamDraft, coalescedFirstAttempt, conversationEventDraft, endpointsFor, type EndpointFilter, type EventDraft } from './outbound-event.rules.js';

export const newEventId = () => `evt_${randomBytes(12).toString('hex')}`;
export const newDeliveryId = () => `dlv_${randomBytes(12).toString('hex')}`;

/**
 * Records events and plans their deliveries in the transaction that records them, so an event recorded is an
 * event delivered, and a source change redelivered (the consumer died before its ack) records nothing again:
 * `source_key` is unique.
 */
@Injectable()
export class RecordEventsStore {
  constructor(private readonly dataSource: DataSource) {}

  /** `firstDelayMs`: the retry schedule's first entry, the wait before the first attempt. Returns how many events were new. */
  recordAgentEvents(events: readonly AgentStreamMessage[], firstDelayMs: number): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const plan = new DeliveryPlanner(em, firstDelayMs);
      let recorded = 0;
      for (const event of events) {
        const draft = agentStreamDraft(event);
        if (draft && (await plan.record(draft))) recorded++;
      }
      return recorded;
    });
  }

  /**
   * Changes are drafted in the order given, under a lock per conversation, so two replicas never both call the
   * same conversation's end `conversation.ended`. `publicBaseUrl`: the root of a `transcript_url` (PUBLIC_URL).
   */
  recordConversationChanges(changes: readonly ConversationChange[], firstDelayMs: number, publicBaseUrl?: string): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const ids = [...new Set(changes.map((change) => change.conversation.id))].sort();
      for (const id of ids) await em.query(`SELECT pg_advisory_xact_lock(hashtext('notifications-conversation:' || $1))`, [id]);
      const endedRows: Array<{ conversation_id: string }> = await em.query(
        `SELECT DISTINCT conversation_id FROM notifications.events WHERE conversation_id = ANY($1) AND type = 'conversation.ended'`, [ids],
      );
      const ended = new Set(endedRows.map((row) => row.conversation_id));
      const plan = new DeliveryPlanner(em, firstDelayMs);
      let recorded = 0;
      for (const change of changes) {
        const draft = conversationEventDraft(change, ended.has(change.conversation.id), publicBaseUrl);
        if (!(await plan.record(draft))) continue;
        recorded++;
        if (draft.type === 'conversation.ended') ended.add(change.conversation.id);
      }
      return recorded;
    });
  }
}

/** One transaction's event inserts and the deliveries each plans, with each account's endpoints read once. */
export class DeliveryPlanner {
  private readonly endpoints = new Map<string, EndpointFilter[]>();

  constructor(private readonly em: EntityManager, private readonly firstDelayMs: number) {}

  /** False when the source change was recorded before. */
  async record(draft: EventDraft): Promise<boolean> {
    const id = newEventId();
    const now = new Date();
    const body: OutboundEvent = { id, type: draft.type, timestamp: draft.occurred_at ?? now.toISOString(), data: draft.data };
    const inserted: unknown[] = await this.em.query(
      `INSERT INTO notifications.events (id, account_id, type, source_key, agent_id, conversation_id, body, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (source_key) DO NOTHING RETURNING id`,
      [id, draft.account_id, draft.type, draft.source_key, draft.agent_id, draft.conversation_id, JSON.stringify(body), now],
    );
    if (inserted.length === 0) return false;
    const targets = endpointsFor(draft, await this.endpointsOf(draft.account_id));
    if (targets.length === 0) return true;
    const due = draft.coalesced && draft.conversation_id
      ? await this.coalesce(targets, draft.conversation_id, now)
      : targets.map(() => new Date(now.getTime() + this.firstDelayMs));
    await this.em.query(
      `INSERT INTO notifications.deliveries (id, account_id, endpoint_id, event_id, status, next_attempt_at, window_at, created_at, updated_at)
       SELECT d.id, $1, d.endpoint_id, $2, 'pending', d.due, d.due, $3, $3
         FROM unnest($4::text[], $5::text[], $6::timestamptz[]) AS d(id, endpoint_id, due)`,
      [draft.account_id, id, now, targets.map(newDeliveryId), targets, due],
    );
    return true;
  }

  /**
   * An in-progress update replaces the conversation's update each endpoint has not been sent yet (it carries the
   * whole item again) and takes its window; otherwise it waits out 5 s after the previous update's window.
   * Returns each target's first attempt, in order.
   */
  private async coalesce(targets: string[], conversationId: string, now: Date): Promise<Date[]> {
    const [superseded]: [Array<{ endpoint_id: string; window_at: Date }>, number] = await this.em.query(
      `DELETE FROM notifications.deliveries d USING notifications.events e
        WHERE d.event_id = e.id AND e.conversation_id = $1 AND e.type = 'conversation.updated' AND d.endpoint_id = ANY($2)
          AND d.status = 'pending' AND d.attempts = 0 AND (d.lease_until IS NULL OR d.lease_until <= now())
        RETURNING d.endpoint_id, d.window_at`,
      [conversationId, targets],
    );
    const previous: Array<{ endpoint_id: string; window_at: Date }> = await this.em.query(
      `SELECT d.endpoint_id, max(d.window_at) AS window_at FROM notifications.deliveries d JOIN notifications.events e ON e.id = d.event_id
        WHERE e.conversation_id = $1 AND e.type = 'conversation.updated' AND d.endpoint_id = ANY($2) GROUP BY d.endpoint_id`,
      [conversationId, targets],
    );
    const kept = new Map(superseded.map((row) => [row.endpoint_id, row.window_at]));
    const last = new Map(previous.map((row) => [row.endpoint_id, row.window_at]));
    return targets.map((endpointId) => kept.get(endpointId) ?? coalescedFirstAttempt(now, this.firstDelayMs, last.get(endpointId) ?? undefined));
  }

  private async endpointsOf(accountId: string): Promise<EndpointFilter[]> {
    let endpoints = this.endpoints.get(accountId);
    if (!endpoints) {
      endpoints = await this.em.query('SELECT id, enabled, event_types, agent_ids FROM notifications.endpoints WHERE account_id = $1', [accountId]);
      this.endpoints.set(accountId, endpoints!);
    }
    return endpoints!;
  }
}
