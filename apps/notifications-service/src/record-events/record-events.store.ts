import { Injectable } from '@nestjs/common';
import type { AgentStreamMessage, ConversationChange, OutboundEvent } from '@voice/contracts';
import { randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import type { LeasedDelivery } from '../deliver-events/deliveries.store.js';
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

/** A new delivery leased to this process's worker in the transaction that records it, with what its attempt needs. */
export interface HandedDelivery extends LeasedDelivery {
  /** When the lease ends (the worker's clock): an attempt starts only while it leaves room for the whole attempt. */
  lease_until: Date;
}

/** Room a worker promised to one recording: attempted once it commits, given back if it does not. */
export interface HandoffReservation {
  readonly leaseToken: string;
  readonly leaseUntil: Date;
  /** Per endpoint, how many of the recording's new deliveries the worker takes. */
  readonly shares: ReadonlyMap<string, number>;
  /** After the commit: the leased deliveries, queued in the worker and attempted as its slots and their endpoints' caps allow. */
  begin(deliveries: readonly HandedDelivery[]): void;
  /** The recording rolled back: the room is free again. */
  release(): void;
}

/**
 * This process's delivery worker as a recording sees it. A delivery due at once goes to the worker that recorded
 * it, leased in the same transaction: no claim (a statement, a row version and its index entries) stands between
 * its commit and its POST. A process that dies after the commit leaves leases that expire, and the deliveries are
 * claimed again: at least once, as with any claim.
 */
export interface DeliveryHandoff {
  /**
   * `wanted`: new deliveries per endpoint; `leased`: each endpoint's deliveries leased now, over every replica;
   * `longestBody`: the characters of the longest body among them.
   */
  reserve(wanted: ReadonlyMap<string, number>, leased: ReadonlyMap<string, number>, longestBody: number): HandoffReservation | undefined;
}

/**
 * Records events and plans their deliveries in the transaction that records them, so an event recorded is an
 * event delivered, and a source change redelivered (the consumer died before its ack) records nothing again:
 * `source_key` is unique.
 */
@Injectable()
export class RecordEventsStore {
  /** `handoff`: the worker of this process, given the deliveries due at once (none: every delivery waits for a claim). */
  constructor(private readonly dataSource: DataSource, private readonly handoff?: DeliveryHandoff) {}

  /** `firstDelayMs`: the retry schedule's first entry, the wait before the first attempt. Returns how many events were new. */
  recordAgentEvents(events: readonly AgentStreamMessage[], firstDelayMs: number): Promise<number> {
    return this.recording(firstDelayMs, (planner) => {
      const drafts = events.map(agentStreamDraft).filter((draft): draft is EventDraft => draft !== undefined);
      return planner.recordAll(drafts);
    });
  }

  /** One transaction; the deliveries handed to the worker go to it once it commits, and its room is freed if it fails. */
  private async recording(firstDelayMs: number, work: (planner: DeliveryPlanner, em: EntityManager) => Promise<number>): Promise<number> {
    const handed: HandedOver[] = [];
    try {
      const recorded = await this.dataSource.transaction((em) => work(new DeliveryPlanner(em, firstDelayMs, this.handoff, handed), em));
      for (const { reservation, deliveries } of handed) reservation.begin(deliveries);
      return recorded;
    } catch (err) {
      for (const { reservation } of handed) reservation.release();
      throw err;
    }
  }

  /**
   * Changes are drafted in the order given, under a lock per conversation, so two replicas never both call the
   * same conversation's end `conversation.ended`. `publicBaseUrl`: the root of a `transcript_url` (PUBLIC_URL).
   */
  recordConversationChanges(changes: readonly ConversationChange[], firstDelayMs: number, publicBaseUrl?: string): Promise<number> {
    return this.recording(firstDelayMs, async (planner, em) => {
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
      return planner.recordAll(drafts);
    });
  }
}

/** A reservation and the deliveries the transaction leased under it. */
interface HandedOver {
  reservation: HandoffReservation;
  deliveries: HandedDelivery[];
}

/** An endpoint as planning reads it: its filters, and what an attempt of its deliveries needs. */
interface PlannedEndpoint extends EndpointFilter {
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

/** One transaction's event inserts and the deliveries each plans, with each account's endpoints read once. */
export class DeliveryPlanner {
  private readonly endpoints = new Map<string, PlannedEndpoint[]>();
  private readonly endpointById = new Map<string, PlannedEndpoint>();

  /** `handoff`/`handed`: deliveries due at once are offered to the worker, and what it took is noted in `handed`. */
  constructor(
    private readonly em: EntityManager,
    private readonly firstDelayMs: number,
    private readonly handoff?: DeliveryHandoff,
    private readonly handed: HandedOver[] = [],
  ) {}

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
    const planned = {
      ids: [] as string[], accounts: [] as string[], endpoints: [] as string[], events: [] as string[], due: [] as Date[],
      bodies: [] as string[], leaseTokens: [] as Array<string | null>,
    };
    const flush = async () => {
      if (planned.ids.length === 0) return;
      // Noted before the insert: a recording that fails from here on must give the room back.
      const handedOver = await this.handOver(planned, now);
      if (handedOver) this.handed.push(handedOver);
      await this.em.query(
        `INSERT INTO notifications.deliveries (id, account_id, endpoint_id, event_id, status, next_attempt_at, window_at, lease_token, lease_until, created_at, updated_at)
         SELECT d.id, d.account_id, d.endpoint_id, d.event_id, 'pending', d.due, d.due,
                d.lease_token, CASE WHEN d.lease_token IS NULL THEN NULL ELSE $8::timestamptz END, $7, $7
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[]) AS d(id, account_id, endpoint_id, event_id, due, lease_token)`,
        [planned.ids, planned.accounts, planned.endpoints, planned.events, planned.due, planned.leaseTokens, now, handedOver?.reservation.leaseUntil ?? null],
      );
      for (const list of Object.values(planned)) list.length = 0;
    };
    for (const { id, draft, body } of rows) {
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
        planned.bodies.push(body);
        planned.leaseTokens.push(null);
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

  /**
   * Offers the planned deliveries due now to the worker: those it takes are leased to it (their `leaseTokens`
   * set), the others wait for a claim. Each endpoint's leased count is read here, so the cap holds over every
   * replica as a claim keeps it.
   */
  private async handOver(planned: { ids: string[]; endpoints: string[]; events: string[]; due: Date[]; bodies: string[]; leaseTokens: Array<string | null> }, now: Date): Promise<HandedOver | undefined> {
    if (!this.handoff) return undefined;
    const wanted = new Map<string, number>();
    let longestBody = 0;
    planned.ids.forEach((_, i) => {
      if (planned.due[i].getTime() > now.getTime()) return;
      wanted.set(planned.endpoints[i], (wanted.get(planned.endpoints[i]) ?? 0) + 1);
      longestBody = Math.max(longestBody, planned.bodies[i].length);
    });
    if (wanted.size === 0) return undefined;
    const leasedRows: Array<{ endpoint_id: string; leased: number }> = await this.em.query(
      `SELECT endpoint_id, count(*)::int AS leased FROM notifications.deliveries
        WHERE endpoint_id = ANY($1::text[]) AND lease_until IS NOT NULL AND lease_until > now() AND status = 'pending' GROUP BY endpoint_id`,
      [[...wanted.keys()]],
    );
    const reservation = this.handoff.reserve(wanted, new Map(leasedRows.map((row) => [row.endpoint_id, row.leased])), longestBody);
    if (!reservation) return undefined;
    const left = new Map(reservation.shares);
    const deliveries: HandedDelivery[] = [];
    planned.ids.forEach((deliveryId, i) => {
      const endpointId = planned.endpoints[i];
      const share = left.get(endpointId) ?? 0;
      if (share === 0 || planned.due[i].getTime() > now.getTime()) return;
      left.set(endpointId, share - 1);
      planned.leaseTokens[i] = reservation.leaseToken;
      const endpoint = this.endpointById.get(endpointId)!;
      deliveries.push({
        id: deliveryId, lease_token: reservation.leaseToken, attempts: 0, endpoint_id: endpointId, url: endpoint.url, secret_sealed: endpoint.secret_sealed,
        previous_secret_sealed: endpoint.previous_secret_sealed, previous_secret_expires_at: endpoint.previous_secret_expires_at,
        event_id: planned.events[i], body: planned.bodies[i], lease_until: reservation.leaseUntil,
      });
    });
    return { reservation, deliveries };
  }

  private async endpointsOf(accountId: string): Promise<PlannedEndpoint[]> {
    let endpoints = this.endpoints.get(accountId);
    if (!endpoints) {
      endpoints = await this.em.query(
        `SELECT id, enabled, event_types, agent_ids, url, secret_sealed, previous_secret_sealed, previous_secret_expires_at
           FROM notifications.endpoints WHERE account_id = $1`,
        [accountId],
      ) as PlannedEndpoint[];
      this.endpoints.set(accountId, endpoints);
      for (const endpoint of endpoints) this.endpointById.set(endpoint.id, endpoint);
    }
    return endpoints;
  }
}
