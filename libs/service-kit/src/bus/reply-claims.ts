/**
 * Claim checks for replies the bus cannot carry. NATS refuses any message over
 * its max_payload (1 MiB by default) — a reply too: the client library drops it
 * and the requester times out, so data the API accepted could become unreadable
 * (a long transcript, a page of large agents). A service's reply bigger than
 * REPLY_INLINE_LIMIT is stored instead in a JetStream stream of short-lived
 * chunks and answered with a claim `{ $claim: { id, chunks, bytes } }`; the
 * gateway fetches the chunks by subject, joins them and purges them. Chunks
 * expire after CLAIM_TTL_MS whatever happens to the requester.
 */
import { jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Serializer } from '@nestjs/microservices';
import { NatsRecordSerializer } from '@nestjs/microservices/serializers/nats-record.serializer.js';
import { randomUUID } from 'node:crypto';
import { DEFAULT_JETSTREAM_REPLICAS } from './jetstream.js';
import { from, mergeMap, of, type Observable } from 'rxjs';

/** Replies up to this size (JSON bytes) travel inline; Nest's envelope and headers fit in the rest of 1 MiB. */
export const REPLY_INLINE_LIMIT = 900 * 1024;
/** Each stored chunk, well under max_payload with the stream's own envelope. */
const CHUNK_BYTES = 512 * 1024;
/** A claim nobody fetched is gone after this long. */
const CLAIM_TTL_MS = 60_000;

export interface ReplyClaim {
  $claim: { id: string; chunks: number; bytes: number };
}

export function isReplyClaim(value: unknown): value is ReplyClaim {
  const claim = (value as { $claim?: { id?: unknown; chunks?: unknown } } | null)?.$claim;
  return typeof claim?.id === 'string' && Number.isInteger(claim.chunks);
}

export function replyClaimsStream(namespace: string): { stream: string; subjectRoot: string } {
  return { stream: namespace ? `${namespace}_RPC_REPLY_CLAIMS` : 'RPC_REPLY_CLAIMS', subjectRoot: namespace ? `${namespace}.rpc_reply_claims` : 'rpc_reply_claims' };
}

export class ReplyClaims {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly subjectRoot: string,
  ) {}

  /** The claims of a namespace; creates their stream (memory, limits, TTL, on `replicas` servers) when absent. */
  static async open(nc: NatsConnection, namespace: string, options: { replicas?: number } = {}): Promise<ReplyClaims> {
    const { stream, subjectRoot } = replyClaimsStream(namespace);
    const jsm = await jetstreamManager(nc);
    try {
      await jsm.streams.info(stream);
    } catch {
      await jsm.streams
        .add({
          name: stream,
          subjects: [`${subjectRoot}.>`],
          storage: StorageType.Memory,
          retention: RetentionPolicy.Limits,
          max_age: CLAIM_TTL_MS * 1_000_000,
          num_replicas: options.replicas ?? DEFAULT_JETSTREAM_REPLICAS,
        })
        .catch(async (err: unknown) => {
          // Another process may have created it meanwhile.
          await jsm.streams.info(stream).catch(() => {
            throw err;
          });
        });
    }
    return new ReplyClaims(nc, jsm, stream, subjectRoot);
  }

  /** Stores `json` in chunks and answers the claim for it. */
  async store(json: string): Promise<ReplyClaim> {
    const bytes = Buffer.from(json, 'utf8');
    const id = randomUUID();
    const js = jetstream(this.nc);
    const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
    for (let i = 0; i < chunks; i += 1) {
      await js.publish(`${this.subjectRoot}.${id}.${i}`, bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES));
    }
    return { $claim: { id, chunks, bytes: bytes.length } };
  }

  /** The reply a claim stands for (parsed), its chunks purged. */
  async redeem(claim: ReplyClaim): Promise<unknown> {
    const { id, chunks } = claim.$claim;
    const parts: Uint8Array[] = [];
    for (let i = 0; i < chunks; i += 1) {
      const message = await this.jsm.streams.getMessage(this.stream, { last_by_subj: `${this.subjectRoot}.${id}.${i}` });
      if (!message) throw new Error(`reply claim ${id} is missing chunk ${i} (expired?)`);
      parts.push(message.data);
    }
    await this.jsm.streams.purge(this.stream, { filter: `${this.subjectRoot}.${id}.>` }).catch(() => undefined);
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  }
}

/**
 * A reply already serialized to JSON (to measure it): the NATS transport's serializer (SingleSerializationNatsSerializer)
 * writes these bytes as they are instead of serializing the reply a second time. Any other serializer still gets
 * the reply itself through toJSON, so nothing depends on that one for correctness.
 */
export class SerializedReply {
  constructor(readonly json: string) {}

  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/**
 * Services over NATS: a reply bigger than the bus carries leaves as a claim; any other leaves as the JSON measured
 * here, serialized once (a list page's JSON.stringify was done twice per request before).
 */
@Injectable()
export class ReplyClaimInterceptor implements NestInterceptor {
  constructor(private readonly claims: ReplyClaims) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      mergeMap((reply: unknown) => {
        if (reply === undefined) return of(reply);
        const json = JSON.stringify(reply);
        if (json === undefined) return of(reply);
        return Buffer.byteLength(json, 'utf8') > REPLY_INLINE_LIMIT ? from(this.claims.store(json)) : of(new SerializedReply(json));
      }),
    );
  }
}

/**
 * Nest's NATS record serializer, except that a reply the interceptor above has already serialized is spliced into
 * the packet's JSON as it is. The packet's other fields (id, err, isDisposed) are small.
 */
export class SingleSerializationNatsSerializer implements Serializer {
  private readonly standard = new NatsRecordSerializer();

  serialize(packet: { response?: unknown; data?: unknown } & Record<string, unknown>): unknown {
    if (!(packet?.response instanceof SerializedReply)) return this.standard.serialize(packet);
    const { response, data: _data, ...rest } = packet;
    const head = JSON.stringify(rest);
    const json = response.json;
    return { data: head === '{}' ? `{"response":${json}}` : `${head.slice(0, -1)},"response":${json}}`, headers: undefined };
  }
}

/** The gateway: a claim is redeemed for the reply it stands for. */
export function redeemClaims<T>(claims: ReplyClaims, reply: Observable<T>): Observable<T> {
  return reply.pipe(mergeMap((value) => (isReplyClaim(value) ? (from(claims.redeem(value)) as Observable<T>) : of(value))));
}
