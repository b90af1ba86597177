/**
 * Port to a voice platform's management API: what the service needs to keep an
 * agent live on its platform (the assistant itself and its phone numbers).
 *
 * Every method makes at most one HTTP call with a deadline and never retries:
 * the caller's sync process owns the retry policy (see retry-delay.ts), because
 * only it knows whether the work is still wanted. Every failure is a
 * PlatformCallFailed.
 */
import type { VoicePlatform } from '@voice/contracts';

/** One account's credentials for one platform. */
export interface PlatformConnection {
  /** The platform's API root as the account gave it; checked against internal addresses on every call. */
  baseUrl: string;
  apiKey: string;
}

/** Our agent as a platform should hold it. Field names are ours: errors name these fields. */
export interface PlatformAgentSpec {
  /** Our agent id, stored in the platform's metadata to find the agent again after a crash. Unique within the platform account. */
  external_id: string;
  name: string;
  system_prompt: string | null;
  welcome_message: string | null;
  voice_id: string;
  /** ISO 639-1 or BCP 47; each platform gets the form it takes. */
  language: string;
  transfer_number: string | null;
  /** Where the platform sends this agent's call events. */
  webhook_url: string;
}

/** What can change on an existing agent: only what is given is sent. */
export type PlatformAgentChanges = Partial<Omit<PlatformAgentSpec, 'external_id'>>;

export interface PlatformAgentRef {
  platform_agent_id: string;
}

/** An agent on its platform, with our id (some platform fields, like a shortened name, derive from it). */
export interface PlatformAgentTarget extends PlatformAgentRef {
  external_id: string;
}

export interface PlatformNumberRef {
  phone_number: string;
  /** platform_a knows numbers by the number itself, platform_b by its own id. */
  platform_number_id: string;
}

export interface PlatformNumber extends PlatformNumberRef {
  /** Bought through the platform (released on release) rather than imported (only forgotten). */
  purchased: boolean;
}

export type AcquireNumberRequest =
  /** Import a number the customer owns. */
  | { phone_number: string; platform_agent_id: string | null }
  /** Buy a new one, in the area when given (3 digits), anywhere otherwise. */
  | { phone_number?: undefined; area_code?: string; platform_agent_id: string | null };

/** The fields of ours a platform agent holds, each in the form the platform stores it (platform_b shortens names, …). */
export type StoredAgentFields = Record<Exclude<keyof PlatformAgentSpec, 'external_id'>, string | null>;

/** A platform agent as the platform's listing shows it. */
export interface ListedPlatformAgent extends PlatformAgentRef {
  /** Our agent id from its metadata; null: not one of ours (made in the platform's dashboard). */
  external_id: string | null;
  fields: StoredAgentFields;
}

/** A number as the platform's listing shows it. */
export interface ListedPlatformNumber extends PlatformNumberRef {
  /** The platform agent it answers for; null: it answers nothing. */
  bound_to: string | null;
}

export interface VoicePlatformAdapter {
  readonly platform: VoicePlatform;
  /** A cheap authenticated read: throws invalid_credentials when the key is wrong. */
  verifyCredentials(connection: PlatformConnection): Promise<void>;
  findAgentByExternalId(connection: PlatformConnection, externalId: string): Promise<PlatformAgentRef | undefined>;
  createAgent(connection: PlatformConnection, spec: PlatformAgentSpec): Promise<PlatformAgentRef>;
  /** Sends only the given changes; an agent the platform no longer has is not_found. */
  updateAgent(connection: PlatformConnection, agent: PlatformAgentTarget, changes: PlatformAgentChanges): Promise<void>;
  /** An agent the platform no longer has counts as deleted. */
  deleteAgent(connection: PlatformConnection, platformAgentId: string): Promise<void>;
  acquireNumber(connection: PlatformConnection, request: AcquireNumberRequest): Promise<PlatformNumber>;
  /** Points the number at the agent; null stops it answering. */
  bindNumber(connection: PlatformConnection, number: PlatformNumberRef, platformAgentId: string | null): Promise<void>;
  /** A bought number is released, an imported one forgotten; one the platform no longer has counts as released. */
  releaseNumber(connection: PlatformConnection, number: PlatformNumberRef): Promise<void>;
  /** Every agent of the account, read page by page (one call per page, each with the deadline). */
  listAgents(connection: PlatformConnection): Promise<ListedPlatformAgent[]>;
  /** Every number of the account, page by page. */
  listNumbers(connection: PlatformConnection): Promise<ListedPlatformNumber[]>;
  /** Our spec in the form listAgents shows a platform agent's fields, so that the two compare. Pure, no call. */
  storedFields(spec: PlatformAgentSpec): StoredAgentFields;
}
