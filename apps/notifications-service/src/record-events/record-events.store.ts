import { Injectable } from '@nestjs/common';
import type { AgentStreamMessage, ConversationChange, OutboundEvent } from '@voice/contracts';
import { randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { agentStreamDraft, coalescedFirstAttempt, conversationEventDraft, endpointsFor, type EndpointFilter, type EventDraft } from './outbound-event.rules.js';

/**
 * Random bytes drawn 4 KiB at a time and handed out in slices: a draw per id is a call into OpenSSL each (~17 µs
 * on this machine, more than the rest of planning a delivery), a slice of the pool ~0.5 µs.
 */
const randomPool = { bytes: Buffer.alloc(0), at: 0 };
function randomHex(length: number): string {
  if (randomPool.at + length > randomPool.bytes.length) {
    randomPool.bytes = randomBytes(4096);
    randomPool.at = 0;
  }
  const hex = randomPool.bytes.toString('hex', randomPool.at, randomPool.at + length);
  randomPool.at += length;
  return hex;
}

export const newEventId = () => `evt_${randomHex(12)}`;
export const newDeliveryId = () => `dlv_${randomHex(12)}`;

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
      const drafts = events.map(agentStreamDraft).filter((draft): draft is EventDraft => draft !== undefined);
      return new DeliveryPlanner(em, firstDelayMs).recordAll(drafts);
    });
  }

  /**
   * Changes are drafted in the order given, under a lock per conversation, so two replicas never both call the
   * same conversation's end `conversation.ended`. `publicBaseUrl`: the root of a `transcript_url` (PUBLIC_URL).
   */
  recordConversationChanges(changes: readonly ConversationChange[], firstDelayMs: number, publicBaseUrl?: string): Promise<number> {
    return this.dataSource.transaction(async (em) => {
      const ids = [...new Set(changes.map((change) => change.conversation.id))].sort();
      // Taken in one statement, in the sorted order of the array, so two batches never wait on each other in a cycle.
      await em.query(
        `SELECT pg_advisory_xact_lock(hashtext('notifications-conversation:' || k.id)) FROM unnest($1::text[]) WITH ORDINALITY AS k(id, n) ORDER BY k.n`,
        [ids],
      );
      const endedRows: Array<{ conversation_id: string }> = await em.query(
        `SELECT DISTINCT conversation_id FROM notifications.events WHERE conversation_id = ANY($1) AND type = 'conversation.ended'`, [ids],
      );
      const ended = new Set(endedRows.map((row) => row.conversation_id));
      // A change redelivered (already recorded) drafts what it drafted the first time: an ended call it shows is
      // already in \`ended\`, so marking it again changes nothing.
      const drafts = changes.map((change) => {
        const draft = conversationEventDraft(change, ended.has(change.conversation.id), publicBaseUrl);
        if (draft.type === 'conversation.ended') ended.add(change.conversation.id);
        return draft;
      });
      return new DeliveryPlanner(em, firstDelayMs).recordAll(drafts);
    });
  }
}

/** One transaction's event inserts and the deliveries each plans, with each account's endpoints read once. */
export class DeliveryPlanner {
  private readonly endpoints = new Map<string, EndpointFilter[]>();

  constructor(private readonly em: EntityManager, private readonly firstDelayMs: number) {}

  /** False when the source change was recorded before. */
  async record(draft: EventDraft): Promise<boolean> {
    return (await this.recordAll([draft])) === 1;
  }

  /**
   * Records the drafts' events in one statement (a source change recorded before records nothing) and plans each
   * new event's deliveries, in the drafts' order; returns how many events were new.
   */
  async recordAll(drafts: readonly EventDraft[]): Promise<number> {
    if (drafts.length === 0) return 0;
    const now = new Date();
    const rows = drafts.map((draft) => {
      const id = newEventId();
      const body: OutboundEvent = { id, type: draft.type, timestamp: draft.occurred_at ?? now.toISOString(), data: draft.data };
      return { id, draft, body: JSON.stringify(body) };
    });
    const inserted: Array<{ id: string }> = await this.em.query(
      `INSERT INTO notifications.events (id, account_id, type, source_key, agent_id, conversation_id, body, created_at)
       SELECT e.id, e.account_id, e.type, e.source_key, e.agent_id, e.conversation_id, e.body, $8
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
              WITH ORDINALITY AS e(id, account_id, type, source_key, agent_id, conversation_id, body, n)
        ORDER BY e.n
       ON CONFLICT (source_key) DO NOTHING RETURNING id`,
      [
        rows.map((row) => row.id), rows.map((row) => row.draft.account_id), rows.map((row) => row.draft.type),
        rows.map((row) => row.draft.source_key), rows.map((row) => row.draft.agent_id ?? null),
        rows.map((row) => row.draft.conversation_id ?? null), rows.map((row) => row.body), now,
      ],
    );
    const recorded = new Set(inserted.map((row) => row.id));
    // Deliveries due on the schedule are inserted together; a coalesced update's depend on the pending ones before
    // it, so those planned so far are written first.
    const planned = { ids: [] as string[], accounts: [] as string[], endpoints: [] as string[], events: [] as string[], due: [] as Date[] };
    const flush = async () => {
      if (planned.ids.length === 0) return;
      await this.em.query(
        `INSERT INTO notifications.deliveries (id, account_id, endpoint_id, event_id, status, next_attempt_at, window_at, created_at, updated_at)
         SELECT d.id, d.account_id, d.endpoint_id, d.event_id, 'pending', d.due, d.due, $6, $6
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[]) AS d(id, account_id, endpoint_id, event_id, due)`,
        [planned.ids, planned.accounts, planned.endpoints, planned.events, planned.due, now],
      );
      for (const list of Object.values(planned)) list.length = 0;
    };
    for (const { id, draft } of rows) {
      if (!recorded.has(id)) continue;
      const targets = endpointsFor(draft, await this.endpointsOf(draft.account_id));
      if (targets.length === 0) continue;
      if (draft.coalesced && draft.conversation_id) await flush();
      const due = draft.coalesced && draft.conversation_id
        ? await this.coalesce(targets, draft.conversation_id, now)
        : targets.map(() => new Date(now.getTime() + this.firstDelayMs));
      targets.forEach((endpointId, i) => {
        planned.ids.push(newDeliveryId());
        planned.accounts.push(draft.account_id);
        planned.endpoints.push(endpointId);
        planned.events.push(id);
        planned.due.push(due[i]);
      });
      if (draft.coalesced && draft.conversation_id) await flush();
    }
    await flush();
    return recorded.size;
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
