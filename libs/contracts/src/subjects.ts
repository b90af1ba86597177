/**
 * NATS subjects. Every subject and stream name is prefixed with the deployment
 * namespace (env NATS_NAMESPACE, empty in production) by the transport, so two
 * deployments — or two test runs — can share one NATS server without cross-talk.
 */
export const AgentsRpc = {
  create: 'agents.create',
  get: 'agents.get',
  list: 'agents.list',
  update: 'agents.update',
  delete: 'agents.delete',
  /** Which of the given agent ids belong to the account (used by call-event ingest). */
  verifyOwnership: 'agents.verify-ownership',
  /** Which of the account's agents a platform knows under the given platform agent ids (used by webhook ingest). */
  findByPlatformAgent: 'agents.find-by-platform-agent',
  health: 'agents.health',
} as const;

export const ConversationsRpc = {
  list: 'conversations.list',
  get: 'conversations.get',
  transcript: 'conversations.transcript',
  /** Aggregate figures over the conversations the list's filters select. */
  stats: 'conversations.stats',
  /** The filters of a live stream (GET /v1/conversations/stream), checked with the list's parser. */
  streamFilter: 'conversations.stream-filter',
  /** Which call events of a batch the service would refuse because their agent does not answer the call (used by call-event ingest). */
  checkAnswering: 'conversations.check-answering',
  health: 'conversations.health',
} as const;

/** JetStream stream that voice-platform ingestors publish call events to. */
export const CALL_EVENTS_STREAM = 'CALL_EVENTS';
/**
 * How long CALL_EVENTS keeps a call event (CALL_EVENTS_MAX_AGE_MS): conversations-service records each one in
 * PostgreSQL, the system of record, within seconds, so the stream only needs to hold what waits for it through an
 * outage of the service, and a copy of what callers said should not outlive a redaction or an erasure by long.
 */
export const DEFAULT_CALL_EVENTS_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
export const CALL_EVENTS_SUBJECT_ROOT = 'call_events';
/** Publish subject for one call event: `call_events.<type>`, e.g. `call_events.call.started`. */
export const callEventSubject = (type: string) => `${CALL_EVENTS_SUBJECT_ROOT}.${type}`;
/**
 * Publish subject naming the account: `call_events.<account_id>.<type>`. What the gateway publishes, and the
 * only form a publisher scoped to one account (NATS permissions) can publish; conversations-service refuses
 * an event whose agent is not of the account its subject names.
 */
export const accountCallEventSubject = (accountId: string, type: string) => `${CALL_EVENTS_SUBJECT_ROOT}.${accountId}.${type}`;
/**
 * The account a call-event subject names, or undefined for the unscoped form `call_events.<type>` (every
 * event type starts with `call.`, which no account id is). `subject` as on the wire, with its namespace.
 */
export function callEventSubjectAccount(namespace: string | undefined, subject: string): string | undefined {
  const root = `${namespacedSubject(namespace, CALL_EVENTS_SUBJECT_ROOT)}.`;
  if (!subject.startsWith(root)) return undefined;
  const [first, ...type] = subject.slice(root.length).split('.');
  return first === 'call' || type.length === 0 ? undefined : first;
}

/** JetStream stream the agents outbox relay publishes agent integration events to. */
export const AGENT_EVENTS_STREAM = 'AGENT_EVENTS';
export const AGENT_EVENTS_SUBJECT_ROOT = 'agent_events';
export const agentEventSubject = (type: string) => `${AGENT_EVENTS_SUBJECT_ROOT}.${type}`;

/** Apply a namespace prefix to a subject (`ns.subject`) or stream name (`ns_STREAM`). */
export function namespacedSubject(namespace: string | undefined, subject: string): string {
  return namespace ? `${namespace}.${subject}` : subject;
}
export function namespacedStream(namespace: string | undefined, stream: string): string {
  return namespace ? `${namespace.replace(/[^A-Za-z0-9_-]/g, '_')}_${stream}` : stream;
}

/** Header names carried on every bus message. */
export const Headers = {
  requestId: 'x-request-id',
  /**
   * JetStream de-duplication header. Agent events: the event id. Call events: `<account_id>:<event_id>`
   * (what the gateway sets): platform event ids are unique only within an account.
   */
  msgId: 'Nats-Msg-Id',
  /** The API key a command was made with (the gateway sets it on changes the audit log records). */
  actorKeyId: 'x-actor-key-id',
  /** The address of the client that sent the command to the gateway. */
  clientAddress: 'x-client-address',
} as const;
