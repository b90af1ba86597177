/**
 * Request/response payloads of the gateway → service request-reply messages.
 * The gateway authenticates the API key and always sends the account it
 * resolved; services never trust an account id taken from a client body.
 */
import type { PiiRedactionSettings } from './agents.js';

/** What a service needs to know about the calling account. */
export interface AccountContext {
  id: string;
  /** The plan's agent limit, enforced by agents-service under a row lock. */
  agent_limit: number;
  /** Voice platform integrations configured for the account. */
  voice_platforms: string[];
}

/** Raw query string values as Express parses them; services validate them. */
export type RawQuery = Record<string, string | string[] | undefined>;

/** A page of results; the gateway turns it into `meta` and `links`. */
export interface PageResult<T> {
  items: T[];
  total: number;
  page: number;
  per_page: number;
}

export interface HealthReply {
  service: string;
  status: 'ok';
  /** Present when the service has a read replica (DATABASE_READ_URL): its state and lag, for the gateway's /health. */
  read_replica?: ReadReplicaStatus;
}

/** A service's read replica as /health shows it: `ok` serves reads; `lagging` and `unreachable` leave them to the primary. */
export interface ReadReplicaStatus {
  state: 'ok' | 'lagging' | 'unreachable';
  /** How old the data it serves is (0 when caught up with the primary); null when unknown. */
  lag_ms: number | null;
  lag_bytes: number | null;
  max_lag_ms: number;
}

// ---- agents-service ----
export interface CreateAgentRequest {
  account: AccountContext;
  /** The untouched JSON body; agents-service validates it. */
  body: unknown;
  /**
   * The client's Idempotency-Key, when it sent one: what lets the service recognise a repeated create
   * whose first answer never reached the client (the gateway timed out while it committed).
   */
  idempotency_key?: string;
}
export interface GetAgentRequest {
  account_id: string;
  agent_id: string;
}
export interface ListAgentsRequest {
  account_id: string;
  query: RawQuery;
}
export interface UpdateAgentRequest {
  account: AccountContext;
  agent_id: string;
  body: unknown;
  /** Expected stream version from an If-Match header; stale → precondition_failed. */
  expected_version?: number;
}
export interface DeleteAgentRequest {
  account_id: string;
  agent_id: string;
  expected_version?: number;
}
export interface VerifyAgentOwnershipRequest {
  account_id: string;
  agent_ids: string[];
}
export interface VerifyAgentOwnershipReply {
  /** Ids from the request that are not agents of the account (never existed, or another account's). */
  unknown_agent_ids: string[];
}

export interface FindByPlatformAgentRequest {
  account_id: string;
  platform: string;
  platform_agent_ids: string[];
}
export interface FindByPlatformAgentReply {
  /** Our agent id for each platform agent id the account's agents hold (deleted agents included); absent ids are unknown. */
  agents: Record<string, string>;
  /**
   * Each found agent's privacy settings, by our agent id: what the gateway keeps of the agent's webhook bodies in its
   * delivery log. Absent from the replies of agents-service versions before it (the gateway then redacts every category).
   */
  privacy?: Record<string, AgentPrivacySettings>;
}

/** The settings that decide what is kept of what an agent's callers say. */
export interface AgentPrivacySettings {
  pii_redaction: PiiRedactionSettings;
  store_content: boolean;
}

// ---- conversations-service ----
export interface ListConversationsRequest {
  account_id: string;
  query: RawQuery;
}
export interface ConversationStatsRequest {
  account_id: string;
  query: RawQuery;
}
export interface GetConversationRequest {
  account_id: string;
  conversation_id: string;
}
export interface GetTranscriptRequest {
  account_id: string;
  conversation_id: string;
  /** Already resolved by the gateway from ?format= or Accept; validated by the service. */
  format: string;
}

/** Which call events of a batch conversations-service would refuse: their agent was paused or deleted when the call started. */
export interface CheckAnsweringRequest {
  account_id: string;
  /** `type` and `id` let the service tell a call's start from its other events (an end arriving before its start is not refused). */
  events: Array<{ conversation_id: string; agent_id: string; occurred_at: string; type?: string; id?: string }>;
}
export interface CheckAnsweringReply {
  /** Positions (in the request's events) of the events of calls that started once their agent was paused or deleted. */
  refused: Array<{ index: number; agent_id: string; status: string }>;
}
