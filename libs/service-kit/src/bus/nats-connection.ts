/**
 * How a NATS_URL becomes connection options. The NATS client ignores user and
 * password written in a server URL, so they are taken out here and passed as
 * options: `nats://gateway:secret@nats:4222` authenticates as `gateway`, and the
 * server list keeps no secret (it shows up in client status events and errors).
 * With a comma-separated list, the first URL carrying credentials gives them.
 *
 * An authenticated connection also gets an inbox prefix of its own, `_INBOX_<user>`:
 * replies, JetStream acknowledgements and pulled messages come back on it, so
 * the server can let each user subscribe to its own inboxes only instead of
 * `_INBOX.>` — which would let any user read every other user's replies.
 */
export interface NatsConnectionTarget {
  servers: string[];
  user?: string;
  pass?: string;
  inboxPrefix?: string;
}

/** A user name usable as one subject token (the inbox prefix is built from it). */
const SUBJECT_TOKEN = /^[A-Za-z0-9_-]+$/;

export function natsConnectionOptions(natsUrl: string): NatsConnectionTarget {
  const target: NatsConnectionTarget = { servers: [] };
  for (const part of natsUrl.split(',').map((s) => s.trim()).filter(Boolean)) {
    let parsed: URL;
    try {
      parsed = new URL(part);
    } catch {
      target.servers.push(part);
      continue;
    }
    if (parsed.username && target.user === undefined) {
      target.user = decodeURIComponent(parsed.username);
      target.pass = decodeURIComponent(parsed.password);
    }
    parsed.username = '';
    parsed.password = '';
    target.servers.push(parsed.toString().replace(/\/$/, ''));
  }
  if (target.user !== undefined && SUBJECT_TOKEN.test(target.user)) target.inboxPrefix = `_INBOX_${target.user}`;
  return target;
}

/**
 * Client settings for every long-lived connection of the apps. By default the NATS client builds an Error (with
 * its stack trace) for every request and every timer it starts, only to enrich a timeout's stack should one
 * happen: 7 % of the gateway's CPU under load. A timeout here becomes a 503 whatever its stack says.
 */
export const NATS_CLIENT_SETTINGS = { noAsyncTraces: true } as const;
