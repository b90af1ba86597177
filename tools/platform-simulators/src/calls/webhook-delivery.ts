import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { PlaceCallError, type CallChaosOptions, type DeliveryAttempt, type DeliveryOptions, type EventDelivery } from './call-options.js';
import { sleep } from '../http-io.js';

export interface OutgoingEvent {
  type: string;
  body: unknown;
  /** When it happens, ms from the call's start: a live call's events are sent then. */
  atMs?: number;
}

export interface DeliveryPolicy {
  retries: number;
  retryDelayMs: number;
  /** platform_b backs off (the delay doubles per retry); platform_a retries at a steady pace. */
  backoff: 'fixed' | 'exponential';
  timeoutMs: number;
}

/**
 * Sends the events one after the other, each until a 2xx or its retries run out. Every attempt is signed
 * anew (a fresh timestamp) over the same bytes, as a platform re-sending an event does. With `liveFrom` (the
 * call's start, Unix ms), each event waits for its moment (`atMs`) first.
 */
export async function deliverEvents(
  url: string,
  events: OutgoingEvent[],
  sign: (rawBody: string) => Record<string, string>,
  policy: DeliveryPolicy,
  liveFrom?: number,
): Promise<EventDelivery[]> {
  const deliveries: EventDelivery[] = [];
  for (const event of events) {
    if (liveFrom !== undefined && event.atMs !== undefined) await sleep(liveFrom + event.atMs - Date.now());
    const rawBody = JSON.stringify(event.body);
    const attempts: DeliveryAttempt[] = [];
    let delivered = false;
    for (let attempt = 0; attempt <= policy.retries && !delivered; attempt += 1) {
      if (attempt > 0) await sleep(policy.backoff === 'exponential' ? policy.retryDelayMs * 2 ** (attempt - 1) : policy.retryDelayMs);
      const result = await postOnce(url, rawBody, sign(rawBody), policy.timeoutMs);
      attempts.push(result);
      delivered = result.status !== null && result.status >= 200 && result.status < 300;
    }
    deliveries.push({ type: event.type, rawBody, attempts, delivered });
  }
  return deliveries;
}

/**
 * Applies the chaos options to the events of a call, in this order: an unknown event is added after the
 * first one, omitted types are dropped, the order is changed, then duplicates follow their original.
 */
export function applyChaos(events: OutgoingEvent[], chaos: CallChaosOptions | undefined, unknownEvent: OutgoingEvent, isEndEvent: (event: OutgoingEvent) => boolean): OutgoingEvent[] {
  if (!chaos) return events;
  let result = [...events];
  if (chaos.unknownEvent) result.splice(Math.min(1, result.length), 0, unknownEvent);
  if (chaos.omit) result = result.filter((event) => !chaos.omit?.includes(event.type));
  if (chaos.reorder === 'reverse') result.reverse();
  if (chaos.reorder === 'end-before-start') result = [...result.filter(isEndEvent), ...result.filter((event) => !isEndEvent(event))];
  if (chaos.duplicate) {
    const duplicated = (event: OutgoingEvent) => chaos.duplicate === true || (Array.isArray(chaos.duplicate) && chaos.duplicate.includes(event.type));
    result = result.flatMap((event) => (duplicated(event) ? [event, event] : [event]));
  }
  return result;
}

function postOnce(url: string, rawBody: string, signatureHeaders: Record<string, string>, timeoutMs: number): Promise<DeliveryAttempt> {
  const at = Date.now();
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (attempt: DeliveryAttempt) => {
      if (settled) return;
      settled = true;
      resolve(attempt);
    };
    // No connection reuse: each attempt is independent, and nothing keeps a test's process alive afterwards.
    const outgoing = send(target, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(rawBody)), 'user-agent': 'platform-simulator', ...signatureHeaders },
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      settle({ at, status: null, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    outgoing.on('response', (response) => {
      response.resume();
      response.on('end', () => {
        clearTimeout(timer);
        settle({ at, status: response.statusCode ?? null });
      });
      response.on('error', () => {
        clearTimeout(timer);
        settle({ at, status: response.statusCode ?? null });
      });
    });
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      settle({ at, status: null, error: error.message });
    });
    outgoing.end(rawBody);
  });
}

/** The delivery policy of one call: the platform's defaults, with the caller's options checked against its limits. */
export function deliveryPolicy(
  options: DeliveryOptions | undefined,
  platform: { defaultRetries: number; maxRetries: number; backoff: DeliveryPolicy['backoff'] },
): DeliveryPolicy {
  const retries = options?.retries ?? platform.defaultRetries;
  if (!Number.isInteger(retries) || retries < 0 || retries > platform.maxRetries) {
    throw new PlaceCallError(`delivery.retries must be an integer from 0 to ${platform.maxRetries}`);
  }
  const retryDelayMs = options?.retryDelayMs ?? 1_000;
  const timeoutMs = options?.timeoutMs ?? 10_000;
  if (!Number.isFinite(retryDelayMs) || retryDelayMs < 0) throw new PlaceCallError('delivery.retryDelayMs must be a non-negative number');
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new PlaceCallError('delivery.timeoutMs must be a positive number');
  return { retries, retryDelayMs, timeoutMs, backoff: platform.backoff };
}
