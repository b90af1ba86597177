import { checkOutboundUrl, OutboundHttpClient, OutboundRequestFailed, resolveWithSystemDns, type HostResolver } from '@voice/service-kit';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { refusedAddress, type EndpointUrlPolicy } from '../webhook-endpoints/webhook-endpoint.rules.js';
import { DELIVERY_TIMEOUT_MS, parseRetryAfter, storedBody, type AttemptOutcome } from './delivery-schedule.rules.js';

export interface SentAttempt extends AttemptOutcome {
  durationMs: number;
  responseBody: string | null;
}

/** DNS gets this long of the attempt's deadline for the address check; a resolver that hangs is a failed attempt. */
const RESOLVE_TIMEOUT_MS = 5_000;

/** The system resolver, bounded: an answer that does not come in time is an error like any other. */
export function boundedResolver(timeoutMs: number, resolve: HostResolver = resolveWithSystemDns): HostResolver {
  return (hostname) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`no DNS answer within ${timeoutMs} ms`), { code: 'ETIMEOUT' })), timeoutMs);
    });
    return Promise.race([resolve(hostname), deadline]).finally(() => clearTimeout(timer));
  };
}

/** Signers and verdicts kept at most (a few per endpoint). */
const MAX_CACHED = 10_000;

/** The most of a receiver's answer read; its first 1 KiB is stored. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One signed POST (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature, signed with the
 * `standardwebhooks` package) to an endpoint: the host is resolved and checked before every attempt, redirects
 * are not followed, 15 s is the deadline for the whole answer. Never throws: every failure is an outcome.
 * Connections to an endpoint are kept between attempts (a new TCP, and TLS, handshake per attempt would cost more
 * than the attempt); each was checked when it connected, and the name's current addresses are checked before
 * every attempt all the same.
 */
export class WebhookSender {
  private readonly client: OutboundHttpClient;
  /** Signers by secret (each decodes its secret once), and the check's verdict for URLs whose host is an IP address. */
  private readonly signers = new Map<string, Webhook>();
  private readonly literalVerdicts = new Map<string, string | null>();

  constructor(private readonly policy: EndpointUrlPolicy, timeoutMs = DELIVERY_TIMEOUT_MS) {
    this.client = new OutboundHttpClient({ allowPrivate: policy.allowPrivate, timeoutMs, maxResponseBytes: MAX_RESPONSE_BYTES, keepAlive: true });
  }

  /** Closes the kept connections. */
  close(): void {
    this.client.close();
  }

  async send(url: string, secrets: readonly string[], eventId: string, body: string): Promise<SentAttempt> {
    const started = Date.now();
    const done = (outcome: AttemptOutcome, responseBody: string | null = null): SentAttempt => ({ ...outcome, durationMs: Date.now() - started, responseBody });
    const refusal = await this.refusal(url);
    if (refusal) return done({ error: refusal });
    const timestamp = new Date();
    const signature = secrets.map((secret) => this.signer(secret).sign(eventId, timestamp, body)).join(' ');
    try {
      const response = await this.client.requestJson({
        method: 'POST',
        url,
        headers: {
          'webhook-id': eventId,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
          'user-agent': 'voice-agent-ops-webhooks/1',
        },
        // The signed bytes, as they are.
        bodyText: body,
      });
      const retryAfter = response.headers['retry-after'];
      return done(
        { statusCode: response.status, retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, Date.now()) },
        storedBody(response.text),
      );
    } catch (err) {
      if (err instanceof OutboundRequestFailed) return done({ statusCode: err.details.status, error: `${err.kind}: ${err.message}` });
      return done({ error: `network: ${(err as Error).message}` });
    }
  }

  private signer(secret: string): Webhook {
    let signer = this.signers.get(secret);
    if (!signer) {
      if (this.signers.size >= MAX_CACHED) this.signers.clear();
      signer = new Webhook(secret);
      this.signers.set(secret, signer);
    }
    return signer;
  }

  /**
   * Checked on every attempt, DNS included: a name may point somewhere else since the endpoint was saved. A URL
   * whose host is an IP address resolves to nothing else, so its verdict is kept.
   */
  private async refusal(url: string): Promise<string | undefined> {
    const known = this.literalVerdicts.get(url);
    if (known !== undefined) return known ?? undefined;
    const checked = await checkOutboundUrl(url, { allowPrivate: true }, boundedResolver(RESOLVE_TIMEOUT_MS));
    if (!checked.ok) return `${checked.kind}: url ${checked.problem}`;
    let verdict: string | undefined;
    for (const { address } of checked.addresses) {
      const refused = refusedAddress(address, this.policy);
      if (refused) {
        verdict = `forbidden_address: ${refused}`;
        break;
      }
    }
    if (isIP(checked.url.hostname.replace(/^\[|\]$/g, ''))) {
      if (this.literalVerdicts.size >= MAX_CACHED) this.literalVerdicts.clear();
      this.literalVerdicts.set(url, verdict ?? null);
    }
    return verdict;
  }
}
