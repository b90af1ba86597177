/**
 * Clients that behave as the API asks of them under faults: retry on 503 / 502 / 504 / 429 / connection errors /
 * timeouts with the same event ids (ids make retries harmless), never on a 4xx refusal. Each keeps a ledger —
 * what was sent at least once, what was acknowledged (a 202's event_ids, a JetStream publish ack) — which is
 * the "history" the checker compares with what the system stored.
 */
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { callEventSubject, namespacedSubject, type CallEvent } from '@voice/contracts';
import { sleep } from './cluster.js';

export class Ledger {
  readonly sent = new Set<string>();
  readonly acked = new Set<string>();
  /** Time of every acknowledgement, to see when a fault stopped them and when they came back. */
  readonly ackTimes: number[] = [];
  /** Failed attempts by cause ('503', 'ECONNREFUSED', 'timeout', …): what the clients went through. */
  readonly failures = new Map<string, number>();
  retries = 0;
  /** Set when the scenario failed: the clients stop instead of retrying on in the background. */
  aborted = false;
  /** HTTP requests on the wire right now: a kill aimed at the gateway waits for one, so it cuts a request. */
  inFlight = 0;
  /** The longest an HTTP request took to be answered (any status): a fault must be answered, not hung on. */
  slowestAnswerMs = 0;

  fail(cause: string): void {
    this.retries += 1;
    this.failures.set(cause, (this.failures.get(cause) ?? 0) + 1);
  }

  ack(ids: Iterable<string>): void {
    for (const id of ids) this.acked.add(id);
    this.ackTimes.push(Date.now());
  }

  firstAckAfter(t: number): number | undefined {
    return this.ackTimes.find((a) => a >= t);
  }

  failureSummary(): string {
    return [...this.failures].map(([k, v]) => `${k}×${v}`).join(' ') || '-';
  }
}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);

function causeOf(err: unknown): string {
  const e = err as { name?: string; code?: string; cause?: { code?: string }; message?: string };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout';
  return e?.cause?.code ?? e?.code ?? (e?.message ?? String(err)).slice(0, 40);
}

export interface IngestOptions {
  /** Events per request (HTTP) or publishes in flight (JetStream). */
  batch?: number;
  concurrency?: number;
  /** Pacing, so the ingest lasts long enough for a fault to land in the middle of it. */
  eventsPerSecond?: number;
  /** Give up (and leave the rest un-acked) after this long. */
  deadlineMs?: number;
}

/** Paces a stream of work to `rate` items per second from the first call. */
function pacer(rate: number | undefined) {
  const start = Date.now();
  let issued = 0;
  return async (n: number) => {
    if (!rate) return;
    const due = start + (issued / rate) * 1000;
    issued += n;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
  };
}

/** POST /v1/call-events in batches until every batch got its 202 (or the deadline passed). */
export async function ingestOverHttp(baseUrl: string, apiKey: string, events: CallEvent[], ledger: Ledger, options: IngestOptions = {}): Promise<void> {
  const batch = options.batch ?? 50;
  const deadline = Date.now() + (options.deadlineMs ?? 180_000);
  const batches: CallEvent[][] = [];
  for (let i = 0; i < events.length; i += batch) batches.push(events.slice(i, i + batch));
  const pace = pacer(options.eventsPerSecond);
  let next = 0;
  const worker = async () => {
    while (next < batches.length && !ledger.aborted) {
      const body = { events: batches[next++] };
      await pace(body.events.length);
      for (let attempt = 0; Date.now() < deadline && !ledger.aborted; attempt += 1) {
        for (const e of body.events) ledger.sent.add(e.id);
        ledger.inFlight += 1;
        const startedAt = Date.now();
        try {
          const res = await fetch(`${baseUrl}/v1/call-events`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(15_000),
          });
          const text = await res.text();
          ledger.slowestAnswerMs = Math.max(ledger.slowestAnswerMs, Date.now() - startedAt);
          if (res.status === 202) {
            ledger.ack(JSON.parse(text).data.event_ids as string[]);
            break;
          }
          if (!RETRYABLE.has(res.status)) throw new Error(`POST /v1/call-events refused: ${res.status} ${text.slice(0, 300)}`);
          ledger.fail(String(res.status));
          const retryAfter = Number(res.headers.get('retry-after'));
          await sleep(retryAfter > 0 ? Math.min(retryAfter * 1000, 5_000) : backoff(attempt));
        } catch (err) {
          if (err instanceof Error && err.message.startsWith('POST /v1/call-events refused')) throw err;
          ledger.fail(causeOf(err));
          await sleep(backoff(attempt));
        } finally {
          ledger.inFlight -= 1;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 3 }, worker));
}

/** Jittered exponential backoff, capped at 1 s: faults here last seconds, not minutes. */
function backoff(attempt: number): number {
  return Math.min(1_000, 50 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
}

/**
 * Straight onto the CALL_EVENTS stream as a platform ingestor would, with the gateway's Nats-Msg-Id convention
 * (`<account>:<event id>`, call-event-publisher.ts), so a republish after a lost ack is de-duplicated by the stream
 * and by the service. The connection reconnects forever: a NATS restart is an outage to wait out, not an end.
 */
export async function ingestOverJetStream(
  natsUrl: string,
  namespace: string,
  accountId: string,
  events: CallEvent[],
  ledger: Ledger,
  options: IngestOptions = {},
): Promise<void> {
  const nc = await connect({ servers: natsUrl, maxReconnectAttempts: -1, reconnectTimeWait: 250, name: 'fault-ingestor' });
  const js = jetstream(nc, { timeout: 3_000 });
  const deadline = Date.now() + (options.deadlineMs ?? 180_000);
  const pace = pacer(options.eventsPerSecond);
  let next = 0;
  const worker = async () => {
    while (next < events.length && !ledger.aborted) {
      const event = events[next++];
      await pace(1);
      for (let attempt = 0; Date.now() < deadline && !ledger.aborted; attempt += 1) {
        ledger.sent.add(event.id);
        try {
          await js.publish(namespacedSubject(namespace, callEventSubject(event.type)), JSON.stringify(event), { msgID: `${accountId}:${event.id}` });
          ledger.ack([event.id]);
          break;
        } catch (err) {
          ledger.fail(`js:${causeOf(err)}`);
          await sleep(backoff(attempt));
        }
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.batch ?? 64 }, worker));
  } finally {
    await nc.close().catch(() => undefined);
  }
}

/** Resolves once a request is on the wire (or after `timeoutMs` regardless): a kill then cuts one mid-flight. */
export async function requestInFlight(ledger: Ledger, timeoutMs = 3_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ledger.inFlight === 0 && Date.now() < deadline; ) await sleep(1);
}

/** Resolves once `ledger` holds at least `n` acknowledgements: the moment a scenario injects its fault. */
export async function ackedAtLeast(ledger: Ledger, n: number, timeoutMs = 120_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ledger.acked.size < n; await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`only ${ledger.acked.size} of ${n} acknowledgements`);
  }
}
