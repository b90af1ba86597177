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
  health: 'agents.health',
} as const;

export const ConversationsRpc = {
  list: 'conversations.list',
  get: 'conversations.get',
  transcript: 'conversations.transcript',
  /** Which call events of a batch the service would refuse because their agent does not answer the call (used by call-event ingest). */
  checkAnswering: 'conversations.check-answering',
  health: 'conversations.health',
} as const;

/** JetStream stream that voice-platform ingestors publish call events to. */
export const CALL_EVENTS_STREAM = 'CALL_EVENTS';
export const CALL_EVENTS_SUBJECT_ROOT = 'call_events';
/** Publish subject for one call event: `call_events.<type>`, e.g. `call_events.call.started`. */
export const callEventSubject = (type: string) => `${CALL_EVENTS_SUBJECT_ROOT}.${type}`;

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
} as const;
