import type { OutgoingHttpHeaders } from 'node:http';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  changeMatchesFilter, CONVERSATION_CHANGES_STREAM, conversationChangesSubject, namespacedStream, namespacedSubject,
  type ConversationChange, type StreamFilter,
} from '@voice/contracts';
import type { FollowedMessage, Follower, MessageStreams } from '@voice/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { apiFailure, ApiFailure } from '../http/api-failure.js';
import { callerOf, requestIdOf } from '../http/gateway-request.js';
import { GATEWAY_SETTINGS, LOGGER, MESSAGE_STREAMS, type GatewaySettings } from '../tokens.js';
import {
  DEFAULT_CONVERSATION_STREAM_SETTINGS, eventId, NewerVersionsOnly, resumeProblem, sseComment, sseEvent, sseRetry, type EventPosition,
} from './conversation-stream.rules.js';
import { StreamLeasesStore } from './stream-leases.store.js';

/** Leases are renewed this often; one not renewed for LEASE_TTL_MS (its gateway died) stops counting. */
const LEASE_RENEW_MS = 10_000;
const LEASE_TTL_MS = 35_000;
/** A client that lets this much pile up unread is disconnected (it resumes with Last-Event-ID when it can keep up). */
const MAX_UNSENT_BYTES = 1024 * 1024;
/** What EventSource waits before reconnecting when a stream ends (a gateway shutting down, a slow client). */
const RECONNECT_MS = 1_000;

interface OpenStream {
  leaseId: string;
  /** Ends the stream; resolves once its lease is released. */
  close(reason: string): Promise<void>;
}

/**
 * The live streams of this gateway: each follows its account's subject of CONVERSATION_CHANGES on the bus (so
 * an event recorded through any replica reaches subscribers on every replica), keeps the filter's events, and
 * writes them as Server-Sent Events. Streams end when the client goes away and when the gateway shuts down.
 */
@Injectable()
export class ConversationStreams implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly open = new Set<OpenStream>();
  private renewTimer?: NodeJS.Timeout;

  constructor(
    @Inject(MESSAGE_STREAMS) private readonly streams: MessageStreams,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly leases: StreamLeasesStore,
  ) {}

  private get limits() {
    return this.settings.conversationStreams ?? DEFAULT_CONVERSATION_STREAM_SETTINGS;
  }

  onApplicationBootstrap(): void {
    this.renewTimer = setInterval(() => {
      const ids = [...this.open].map((s) => s.leaseId);
      void this.leases.renew(ids, LEASE_TTL_MS).catch((err: Error) => this.logger.warn({ reason: err.message }, 'could not renew live stream leases'));
    }, LEASE_RENEW_MS);
    this.renewTimer.unref();
  }

  /**
   * Before the HTTP server closes (it would wait for open streams forever): every stream ends, telling clients to
   * reconnect, and its lease is released while the database is still open (else it would count until it expires).
   */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.renewTimer);
    const released = Promise.allSettled([...this.open].map((stream) => stream.close('the gateway is shutting down; reconnect with Last-Event-ID')));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([released, new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
  }

  /**
   * Answer the request with a stream of the account's changes matching `filter`, after event `after` when
   * resuming. Refusals (a resume point the bus no longer holds, too many streams, the bus unreachable) are
   * thrown before anything is written, so they reach the client in the error envelope.
   */
  async serve(req: FastifyRequest, reply: FastifyReply, filter: StreamFilter, after: EventPosition | undefined): Promise<void> {
    const caller = callerOf(req);
    const accountId = caller.account.id;
    const stream = namespacedStream(this.settings.namespace, CONVERSATION_CHANGES_STREAM);
    const kept = await this.unavailableUnless(() => this.streams.bounds(stream));
    if (after !== undefined) {
      const problem = resumeProblem(after, kept);
      if (problem) throw new ApiFailure(problem);
    }
    const lease = await this.unavailableUnless(() => this.leases.acquire(accountId, caller.key_id, this.limits, LEASE_TTL_MS));
    if (!lease.granted) {
      throw apiFailure(
        'rate_limited',
        `At most ${lease.limit} live streams may be open at once per ${lease.per === 'key' ? 'API key' : 'account'}; close one first.`,
        { limit: lease.limit, current: lease.current },
        { 'Retry-After': String(Math.ceil(LEASE_RENEW_MS / 1000)) },
      );
    }

    // From here on the stream writes the response itself, Fastify no longer does.
    reply.hijack();
    const res = reply.raw;
    let follower: Follower | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    let closed = false;
    const open: OpenStream = {
      leaseId: lease.id,
      close: async (reason) => {
        if (closed) return;
        closed = true;
        this.open.delete(open);
        clearInterval(heartbeat);
        void follower?.stop();
        if (!res.writableEnded) {
          if (!res.destroyed) res.write(sseRetry(RECONNECT_MS) + sseComment(reason));
          res.end();
        }
        this.logger.info({ request_id: requestIdOf(req), account_id: accountId, reason }, 'live stream closed');
        await this.leases.release(lease.id).catch((err: Error) => this.logger.warn({ reason: err.message }, 'could not release a live stream lease; it expires'));
      },
    };
    this.open.add(open);
    // The response's close: the client went away (or the stream was ended here); the request's fires once its body is read.
    res.on('close', () => void open.close('the client disconnected'));
    // A client that left while the stream was being opened: its close event has already gone by.
    if (res.destroyed || !res.socket || res.socket.destroyed) {
      await open.close('the client disconnected');
      return;
    }

    const versions = new NewerVersionsOnly();
    const deliver = (message: FollowedMessage) => {
      if (closed) return;
      const change = message.data as ConversationChange | undefined;
      // The subject already names the account; the payload is checked too, so no other account's change can ever be written.
      if (!change || change.account_id !== accountId || !changeMatchesFilter(change, filter)) return;
      if (!versions.admit(change.conversation.id, change.version)) return;
      res.write(sseEvent(eventId({ createdMs: kept.createdMs, sequence: message.sequence }), change.type, JSON.stringify(change.conversation)));
      if (res.writableLength > MAX_UNSENT_BYTES) void open.close('the client reads too slowly; reconnect with Last-Event-ID');
    };

    // What the pipeline and the limiter set on the reply (X-Request-Id, RateLimit-*) goes out with the stream's own headers.
    res.writeHead(200, {
      ...(reply.getHeaders() as OutgoingHttpHeaders),
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // Proxies that buffer responses (nginx) would hold events back.
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    res.write(sseRetry(RECONNECT_MS) + sseComment('stream open'));
    try {
      follower = await this.streams.follow(
        { stream, subject: namespacedSubject(this.settings.namespace, conversationChangesSubject(accountId)), afterSequence: after?.sequence ?? kept.last },
        deliver,
      );
    } catch (err) {
      this.logger.warn({ reason: (err as Error).message }, 'could not follow conversation changes');
      await open.close('the event bus is unavailable; reconnect with Last-Event-ID');
      return;
    }
    if (closed) {
      void follower.stop();
      return;
    }
    heartbeat = setInterval(() => res.write(sseComment('heartbeat')), this.limits.heartbeatMs);
  }

  private async unavailableUnless<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ApiFailure) throw err;
      this.logger.warn({ reason: (err as Error).message }, 'live stream could not be opened');
      throw apiFailure('service_unavailable', 'The live stream cannot be opened right now; retry shortly.');
    }
  }
}
