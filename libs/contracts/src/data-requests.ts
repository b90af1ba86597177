/**
 * Requests about one caller's data (POST /v1/data-requests): an erasure removes every conversation of the caller
 * in the account from every store and leaves a tombstone; an access produces one JSON document of them,
 * downloadable for 24 hours. conversations-service owns them; erasures are announced on CONVERSATIONS_ERASED so
 * the services holding copies (notifications-service's events, the gateway's inbound delivery log) drop theirs.
 */
import { Type, type Static } from '@sinclair/typebox';
import { IsDefined, IsIn, Matches } from 'class-validator';
import { CALL_EVENT_PATTERNS } from './call-event-payloads.js';
import { ConversationDetailSchema } from './conversations.js';
import type { ServiceError } from './errors.js';
import { findProblem, saying } from './validation.js';
import { ClosedObject, DateTime, Nullable, StringEnum } from './view-schema.js';

export const DATA_REQUEST_TYPES = ['erasure', 'access'] as const;
export type DataRequestType = (typeof DATA_REQUEST_TYPES)[number];
export const DATA_REQUEST_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type DataRequestStatus = (typeof DATA_REQUEST_STATUSES)[number];

/** How long an access request's document can be downloaded once it is ready. */
export const ACCESS_EXPORT_TTL_MS = 24 * 60 * 60 * 1000;

export const DataRequestsRpc = {
  create: 'conversations.data-requests.create',
  list: 'conversations.data-requests.list',
  get: 'conversations.data-requests.get',
  /** The access document; a large one leaves as a claim check like every big reply. */
  download: 'conversations.data-requests.download',
} as const;

export const DataRequestViewSchema = ClosedObject(
  {
    id: Type.String({ examples: ['dr_0c1d2e3f4a5b6c7d8e9f0a1b'] }),
    type: StringEnum(DATA_REQUEST_TYPES, { description: 'erasure: remove every conversation of the caller; access: one JSON document of them.' }),
    caller_number: Type.String({ description: 'The caller, masked but for the last 2 digits.', examples: ['**********23'] }),
    status: StringEnum(DATA_REQUEST_STATUSES),
    conversations_found: Type.Integer({ minimum: 0, description: 'Conversations of the caller found so far (grows while calls of the caller arrive during the request).' }),
    conversations_done: Type.Integer({ minimum: 0, description: 'Of those, erased (or exported) so far.' }),
    created_at: DateTime(),
    completed_at: Nullable(DateTime()),
    download_expires_at: Nullable(DateTime({ description: 'Access requests: until when GET /v1/data-requests/{id}/download serves the document.' })),
  },
  { description: 'A request about one caller’s data.' },
);
export type DataRequestView = Static<typeof DataRequestViewSchema>;

/** The body of POST /v1/data-requests: conversations-service validates with it, the API document is read from it. */
export class CreateDataRequestPayload {
  @IsDefined({ ...saying('is required.'), context: { valid_values: DATA_REQUEST_TYPES } })
  @IsIn(DATA_REQUEST_TYPES, { ...saying(`must be one of ${DATA_REQUEST_TYPES.join(', ')}.`), context: { valid_values: DATA_REQUEST_TYPES } })
  type!: DataRequestType;

  @IsDefined(saying('is required.'))
  @Matches(CALL_EVENT_PATTERNS.e164, saying('must be a phone number in E.164 form, such as +14155550123.'))
  caller_number!: string;
}

export function findCreateDataRequestProblem(body: unknown): ServiceError | undefined {
  return findProblem(CreateDataRequestPayload, body);
}

export interface CreateDataRequestRequest {
  account_id: string;
  body: unknown;
}
export interface ListDataRequestsRequest {
  account_id: string;
  query: Record<string, unknown>;
}
export interface DataRequestRequest {
  account_id: string;
  request_id: string;
}

/** The document an access request produces: every stored conversation of the caller, with its transcript. */
export const AccessDocumentSchema = ClosedObject(
  {
    request_id: Type.String(),
    caller_number: Type.String({ description: 'Masked but for the last 2 digits (each conversation carries the number as stored).' }),
    generated_at: DateTime(),
    conversations: Type.Array(ConversationDetailSchema),
  },
  { description: 'Every stored conversation of the caller in the account, as GET /v1/conversations/{id} shows it.' },
);
export type AccessDocument = Static<typeof AccessDocumentSchema>;

/** Why conversations were erased. */
export const ERASURE_REASONS = ['erasure_request', 'retention'] as const;
export type ErasureReason = (typeof ERASURE_REASONS)[number];

export const CONVERSATIONS_ERASED_STREAM = 'CONVERSATIONS_ERASED';
export const CONVERSATIONS_ERASED_SUBJECT_ROOT = 'conversations_erased';
export const conversationsErasedSubject = (accountId: string) => `${CONVERSATIONS_ERASED_SUBJECT_ROOT}.${accountId}`;
/** Kept long enough for a consumer that was down for days to catch up. */
export const CONVERSATIONS_ERASED_RETENTION = { maxAgeMs: 30 * 24 * 60 * 60 * 1000, maxMessages: 10_000_000 } as const;

/** One message of CONVERSATIONS_ERASED: conversations of an account erased in one transaction (no personal data). */
export interface ConversationsErased {
  /** Unique per message (the stream's de-duplication id). */
  notice_id: string;
  account_id: string;
  conversation_ids: string[];
  reason: ErasureReason;
  erased_at: string;
}

export function isConversationsErased(value: unknown): value is ConversationsErased {
  const v = value as Partial<ConversationsErased> | null;
  return typeof v?.notice_id === 'string' && typeof v.account_id === 'string' && Array.isArray(v.conversation_ids)
    && v.conversation_ids.every((id) => typeof id === 'string') && typeof v.erased_at === 'string';
}

/** `+14155550123` → `**********23`: enough to tell requests apart, not enough to name the caller. */
export function maskCallerNumber(number: string): string {
  return number.length <= 2 ? '*'.repeat(number.length) : `${'*'.repeat(number.length - 2)}${number.slice(-2)}`;
}

/**
 * DATA_REQUEST_EVENTS: a data request settled (completed or failed), published once from conversations-service's
 * outbox after the commit (the audit log records `data_request.completed` from it). No personal data.
 */
export const DATA_REQUEST_EVENTS_STREAM = 'DATA_REQUEST_EVENTS';
export const DATA_REQUEST_EVENTS_SUBJECT_ROOT = 'data_request_events';
export const dataRequestEventsSubject = (accountId: string) => `${DATA_REQUEST_EVENTS_SUBJECT_ROOT}.${accountId}`;
export const DATA_REQUEST_EVENTS_RETENTION = { maxAgeMs: 30 * 24 * 60 * 60 * 1000, maxMessages: 1_000_000 } as const;

export interface DataRequestSettled {
  /** Unique per message (the stream's de-duplication id). */
  event_id: string;
  type: 'DataRequestSettled';
  account_id: string;
  request_id: string;
  request_type: DataRequestType;
  status: Extract<DataRequestStatus, 'completed' | 'failed'>;
  conversations_done: number;
  settled_at: string;
}

export function isDataRequestSettled(value: unknown): value is DataRequestSettled {
  const v = value as Partial<DataRequestSettled> | null;
  return v?.type === 'DataRequestSettled' && typeof v.event_id === 'string' && typeof v.account_id === 'string' && typeof v.request_id === 'string'
    && (v.status === 'completed' || v.status === 'failed');
}
