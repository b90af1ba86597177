import { DEFAULT_PII_REDACTION_CATEGORIES } from '@voice/contracts';
import type {
  AgentView, CallAbandonedData, CallEndedData, CallError, CallEvent, CallFailedData, CallProgressData, CallStartedData, CallTranscriptData,
  ConversationDetail, ConversationListItem, FollowUpTask, IntegrationRecord, IntegrationView, NetworkInfo, QualityMetrics, Satisfaction,
  TranscriptSegment, TranscriptView,
} from '@voice/contracts';
import type { CreatedAccount } from '../accounts/created-account.view.js';
import type { ApiKeyView, CreatedApiKey } from '../auth/api-key.views.js';
import { CALL_END_DETAILS_EXAMPLE, PLATFORM_CALL_ID_EXAMPLE } from './call-details-examples.js';
import type { CallEventsAccepted } from '../call-events/call-events-accepted.view.js';
import type { Health } from '../health/health.view.js';
import type { ListEnvelope, Meta } from '../http/envelope.js';
import { pageLinks, pageMeta } from '../http/pagination.js';

/*
 * Every example of the document, typed against the contract views (type-only
 * imports, and the gateway's own pure pagination helpers), so an example cannot drift from the
 * shape it illustrates; the document's tests also validate each one against
 * its schema. They tell one story: Acme Dental's "Front desk" agent takes a
 * call from +14155550123 who books a cleaning.
 */

export const REQUEST_ID_EXAMPLE = '6f1c2a0e-2b1d-4c55-9f0e-2a8d7c1b9e10';
export const API_BASE_URL_EXAMPLE = 'https://api.example.com';

export const AGENT_EXAMPLE: AgentView = {
  id: 'agt_5f0c3b8a9d2e4f6a7b8c9d0e',
  name: 'Front desk',
  voice_platform: 'platform_a',
  phone_number: '+14155550100',
  voice_id: 'pa-voice-warm',
  language: 'en',
  system_prompt: 'You are the receptionist of Acme Dental.',
  welcome_message: 'Hello, Acme Dental, how can I help?',
  transfer_number: null,
  business_hours: { timezone: 'America/New_York', schedule: [{ day: 'monday', open: '09:00', close: '17:00' }] },
  recording_enabled: true,
  transcription_enabled: true,
  pii_redaction: { enabled: true, categories: [...DEFAULT_PII_REDACTION_CATEGORIES] }, store_content: true,
  retention: { conversations_days: 365, recordings_days: 90 }, status: 'active',
  metadata: { team: 'front-office' },
  created_at: '2025-01-31T14:05:00.000Z',
  updated_at: '2025-01-31T14:05:00.000Z',
  platform_sync: {
    state: 'synced',
    platform_agent_id: 'agent_3f2a9c1e7b5d4a6f8e0c2b4d6a8f1e3c',
    synced_version: 1,
    last_attempt_at: '2025-01-31T14:05:00.412Z',
    last_error: null,
    last_reconciled_at: '2025-01-31T14:06:00.120Z',
    last_drift: null,
  },
};

/** A second agent, for list examples: paused, on the other platform, with most optional fields unset. */
export const PAUSED_AGENT_EXAMPLE: AgentView = {
  id: 'agt_9a1b2c3d4e5f60718293a4b5',
  name: 'After hours',
  voice_platform: 'platform_b',
  phone_number: '+14155550101',
  voice_id: 'pb-voice-calm',
  language: 'en',
  system_prompt: null,
  welcome_message: 'Acme Dental is closed; leave a message after the tone.',
  transfer_number: '+14155550199',
  business_hours: null,
  recording_enabled: true,
  transcription_enabled: false,
  pii_redaction: { enabled: false, categories: [...DEFAULT_PII_REDACTION_CATEGORIES] }, store_content: false,
  retention: { conversations_days: null, recordings_days: null }, status: 'paused',
  metadata: {},
  created_at: '2025-01-30T09:12:44.000Z',
  updated_at: '2025-02-02T18:00:03.000Z',
  platform_sync: {
    state: 'pending',
    platform_agent_id: '5b7e0f2c-3d4a-4e8b-9c1d-2a3b4c5d6e7f',
    synced_version: 2,
    last_attempt_at: '2025-02-02T18:00:09.730Z',
    last_error: { code: 'platform_unavailable', message: 'platform_b answered 503; retrying in 4 s' },
    last_reconciled_at: '2025-02-02T18:00:05.310Z',
    last_drift: { found_at: '2025-02-02T18:00:05.310Z', repaired_at: null, platform: 'platform_b', agent_missing: true, number: null,
      changed_fields: [], phone_number_before: '+14155550101', phone_number_after: null },
  },
};

export const TRANSCRIPT_SEGMENTS_EXAMPLE: TranscriptSegment[] = [
  { speaker: 'agent', text: 'Hello, Acme Dental, how can I help?', start_ms: 0, end_ms: 2100 },
  { speaker: 'caller', text: 'I would like to book a cleaning.', start_ms: 2400, end_ms: 4600 },
];

export const TRANSCRIPT_EXAMPLE: TranscriptView = {
  conversation_id: 'call_01HZX3',
  language: 'en',
  segments: TRANSCRIPT_SEGMENTS_EXAMPLE,
};

export const SATISFACTION_EXAMPLE: Satisfaction = { score: 5, indicators: ['thanked the agent'] };
export const QUALITY_EXAMPLE: QualityMetrics = { mos: 4.3, jitter_ms: 12, packet_loss_pct: 0.2, latency_ms: 85 };
export const NETWORK_EXAMPLE: NetworkInfo = { codec: 'opus', carrier: 'Twilio', region: 'us-east-1' };
export const FOLLOW_UP_TASK_EXAMPLE: FollowUpTask = {
  description: 'Send the appointment confirmation by SMS.',
  due_at: '2025-01-31T16:00:00Z',
  assignee: 'front-office',
};
export const INTEGRATION_EXAMPLE: IntegrationRecord = { system: 'google_calendar', action: 'event_created', reference: 'evt_7c1d2e' };
export const CALL_ERROR_EXAMPLE: CallError = { code: 'jitter', message: 'Brief audio jitter on the caller side.', occurred_at: '2025-01-31T15:01:12Z' };

export const CONVERSATION_DETAIL_EXAMPLE: ConversationDetail = {
  id: 'call_01HZX3',
  agent_id: AGENT_EXAMPLE.id,
  agent_name: AGENT_EXAMPLE.name,
  caller_number: '+14155550123',
  status: 'completed',
  start_time: '2025-01-31T15:00:00.000Z',
  end_time: '2025-01-31T15:03:05.000Z',
  duration: 185,
  sentiment: 'positive',
  outcome: 'appointment_booked',
  topics: ['booking'],
  has_recording: true,
  has_transcript: true,
  summary: 'Caller booked a cleaning for Tuesday.',
  created_at: '2025-01-31T15:00:00.120Z',
  updated_at: '2025-01-31T15:03:06.004Z',
  content: {
    transcript: TRANSCRIPT_SEGMENTS_EXAMPLE,
    recording_url: 'https://recordings.example.com/call_01HZX3.mp3',
    language: 'en',
    summary: 'Caller booked a cleaning for Tuesday.',
  },
  analytics: { sentiment: 'positive', topics: ['booking'], keywords: ['cleaning'], satisfaction: { score: 5 }, intent: 'book_appointment' },
  outcomes: { outcome: 'appointment_booked', actions_taken: ['calendar_event_created'], follow_up_tasks: [], integrations: [] },
  technical: { voice_platform: 'platform_a', quality: { mos: 4.3 }, network: null, errors: [], ...CALL_END_DETAILS_EXAMPLE },
  failure_reason: null,
  abandonment_reason: null,
};

/** As listed: the detail's list fields, and a call still in progress. */
export const CONVERSATION_LIST_ITEM_EXAMPLES: ConversationListItem[] = [
  {
    id: CONVERSATION_DETAIL_EXAMPLE.id,
    agent_id: CONVERSATION_DETAIL_EXAMPLE.agent_id,
    agent_name: CONVERSATION_DETAIL_EXAMPLE.agent_name,
    caller_number: CONVERSATION_DETAIL_EXAMPLE.caller_number,
    status: CONVERSATION_DETAIL_EXAMPLE.status,
    start_time: CONVERSATION_DETAIL_EXAMPLE.start_time,
    end_time: CONVERSATION_DETAIL_EXAMPLE.end_time,
    duration: CONVERSATION_DETAIL_EXAMPLE.duration,
    sentiment: CONVERSATION_DETAIL_EXAMPLE.sentiment,
    outcome: CONVERSATION_DETAIL_EXAMPLE.outcome,
    topics: CONVERSATION_DETAIL_EXAMPLE.topics,
    has_recording: CONVERSATION_DETAIL_EXAMPLE.has_recording,
    has_transcript: CONVERSATION_DETAIL_EXAMPLE.has_transcript,
    summary: CONVERSATION_DETAIL_EXAMPLE.summary,
    created_at: CONVERSATION_DETAIL_EXAMPLE.created_at,
  },
  {
    id: 'call_01HZX7',
    agent_id: AGENT_EXAMPLE.id,
    agent_name: AGENT_EXAMPLE.name,
    caller_number: '+14155550177',
    status: 'in_progress',
    start_time: '2025-01-31T14:58:41.000Z',
    end_time: null,
    duration: 0,
    sentiment: null,
    outcome: null,
    topics: [],
    has_recording: false,
    has_transcript: false,
    summary: null,
    created_at: '2025-01-31T14:58:41.310Z',
  },
];

// ---- call events (the ingest contract) ----

const CALL = { conversation_id: CONVERSATION_DETAIL_EXAMPLE.id, agent_id: AGENT_EXAMPLE.id } as const;

export const CALL_STARTED_DATA_EXAMPLE: CallStartedData = { caller_number: '+14155550123', start_time: '2025-01-31T15:00:00Z', platform_call_id: PLATFORM_CALL_ID_EXAMPLE };
export const CALL_PROGRESS_DATA_EXAMPLE: CallProgressData = { duration: 60, sentiment: 'neutral', topics: ['booking'] };
export const CALL_TRANSCRIPT_DATA_EXAMPLE: CallTranscriptData = { segments: TRANSCRIPT_SEGMENTS_EXAMPLE };
export const CALL_ENDED_DATA_EXAMPLE: CallEndedData = {
  end_time: '2025-01-31T15:03:05Z',
  duration: 185,
  summary: 'Caller booked a cleaning for Tuesday.',
  sentiment: 'positive',
  outcome: 'appointment_booked',
  topics: ['booking'],
  recording_url: 'https://recordings.example.com/call_01HZX3.mp3',
  language: 'en',
  intent: 'book_appointment',
  satisfaction: { score: 5 },
  keywords: ['cleaning'],
  actions_taken: ['calendar_event_created'],
  quality: { mos: 4.3 },
  ...CALL_END_DETAILS_EXAMPLE,
};
export const CALL_FAILED_DATA_EXAMPLE: CallFailedData = {
  failure_reason: 'Media timeout',
  end_time: '2025-01-31T15:10:05Z',
  duration: 5,
  error: { code: 'media_timeout', message: 'No media received for 5 s.' },
};
export const CALL_ABANDONED_DATA_EXAMPLE: CallAbandonedData = { reason: 'caller_hangup', caller_number: '+14155550188', start_time: '2025-01-31T15:20:00Z' };

export const CALL_STARTED_EVENT_EXAMPLE: CallEvent = {
  id: 'evt_01HZX3_1', type: 'call.started', ...CALL, occurred_at: '2025-01-31T15:00:00Z', data: CALL_STARTED_DATA_EXAMPLE,
};
export const CALL_TRANSCRIPT_EVENT_EXAMPLE: CallEvent = {
  id: 'evt_01HZX3_2', type: 'call.transcript', ...CALL, occurred_at: '2025-01-31T15:00:05Z', data: CALL_TRANSCRIPT_DATA_EXAMPLE,
};
export const CALL_ENDED_EVENT_EXAMPLE: CallEvent = {
  id: 'evt_01HZX3_3', type: 'call.ended', ...CALL, occurred_at: '2025-01-31T15:03:05Z', data: CALL_ENDED_DATA_EXAMPLE,
};
export const CALL_EVENT_BATCH_EXAMPLE: { events: CallEvent[] } = {
  events: [CALL_STARTED_EVENT_EXAMPLE, CALL_TRANSCRIPT_EVENT_EXAMPLE, CALL_ENDED_EVENT_EXAMPLE],
};
export const CALL_EVENTS_ACCEPTED_EXAMPLE: CallEventsAccepted = {
  accepted: CALL_EVENT_BATCH_EXAMPLE.events.length,
  event_ids: CALL_EVENT_BATCH_EXAMPLE.events.map((event) => event.id),
};

// ---- keys, accounts, health, envelopes ----

export const API_KEY_SECRET_EXAMPLE = 'vk_Q7mR2xK9pL4sT8vW1yZ3bN6cF0hJ5dG2aE7uY4iO';

export const INTEGRATION_VIEW_EXAMPLES: IntegrationView[] = [
  {
    id: 'int_3b9f1c7e2a5d8f0c4e6a1b2d',
    platform: 'platform_a',
    base_url: 'https://api.platform-a.example/',
    webhook_url: `${API_BASE_URL_EXAMPLE}/v1/webhooks/platform_a/int_3b9f1c7e2a5d8f0c4e6a1b2d`,
    api_key_hint: 'a5c2',
    webhook_secret_hint: '0a0f',
    status: 'verified',
    created_at: '2025-01-30T09:12:00Z',
    updated_at: '2025-01-31T10:00:00Z',
    rejected_deliveries_24h: 2,
    last_rejection: { reason: 'stale_timestamp', at: '2025-01-31T09:58:12.000Z' },
  },
];

export const CREATED_API_KEY_EXAMPLE: CreatedApiKey = {
  id: 'key_0123456789abcdef01234567',
  name: 'reporting',
  api_key: API_KEY_SECRET_EXAMPLE,
  prefix: API_KEY_SECRET_EXAMPLE.slice(0, 9),
  scopes: ['conversations:read'],
  created_at: '2025-02-03T10:15:00.000Z',
};

export const API_KEY_EXAMPLES: ApiKeyView[] = [
  {
    id: CREATED_API_KEY_EXAMPLE.id,
    name: CREATED_API_KEY_EXAMPLE.name,
    prefix: CREATED_API_KEY_EXAMPLE.prefix,
    scopes: CREATED_API_KEY_EXAMPLE.scopes,
    created_at: CREATED_API_KEY_EXAMPLE.created_at,
    revoked_at: null,
    last_used_at: '2025-02-03T11:02:17.000Z',
  },
  {
    id: 'key_fedcba9876543210fedcba98',
    name: null,
    prefix: 'vk_3Hk8Zq',
    scopes: ['agents:read', 'agents:write', 'conversations:read', 'call_events:write', 'api_keys:write'],
    created_at: '2025-01-30T09:00:00.000Z',
    revoked_at: null,
    last_used_at: '2025-02-03T10:14:51.000Z',
  },
];

export const CREATED_ACCOUNT_EXAMPLE: CreatedAccount = {
  id: 'acct_0123456789abcdef01234567',
  name: 'Acme Dental',
  plan: 'starter',
  agent_limit: 5,
  voice_platforms: ['platform_a'],
  api_key: 'vk_3Hk8ZqW5eR1tY7uI9oP2aS4dF6gH8jK0lZ3xC5vB',
  created_at: '2025-01-30T09:00:00.000Z',
};

export const HEALTH_EXAMPLE: Health = {
  status: 'ok',
  checks: { database: 'ok', nats: 'ok', agents_service: 'ok', conversations_service: 'ok', notifications_service: 'ok' },
};
export const HEALTH_UNAVAILABLE_EXAMPLE: Health = {
  status: 'unavailable',
  checks: { database: 'ok', nats: 'ok', agents_service: 'unavailable', conversations_service: 'ok', notifications_service: 'ok' },
};

export const META_EXAMPLE: Meta = { request_id: REQUEST_ID_EXAMPLE, timestamp: '2025-01-31T15:04:12.345Z' };

export interface PageExample {
  total: number;
  page: number;
  perPage: number;
}
/** Page 2 of 107 (2 per page): every link of a list is non-null. */
export const CONVERSATIONS_PAGE_EXAMPLE: PageExample = { total: 214, page: 2, perPage: 2 };

/** A list answer as the gateway writes it (its own pageMeta and pageLinks), for `path` on api.example.com. */
export function listExample<T>(path: string, items: T[], page: PageExample = { total: items.length, page: 1, perPage: 25 }): ListEnvelope<T> {
  return {
    data: items,
    meta: { ...pageMeta(page.total, page.page, page.perPage), ...META_EXAMPLE },
    links: pageLinks({ baseUrl: `${API_BASE_URL_EXAMPLE}${path}`, search: '', page: page.page, perPage: page.perPage, total: page.total }),
  };
}

// ---- request bodies: named examples, shown in the docs page's example picker ----

export interface NamedExample {
  summary: string;
  value: unknown;
}

export const REQUEST_EXAMPLES: Record<
  'CreateAgentRequest' | 'UpdateAgentRequest' | 'CreateApiKeyRequest' | 'CreateAccountRequest' | 'ConfigureIntegrationRequest' | 'CallEvent' | 'CallEventBatch',
  Record<string, NamedExample>
> = {
  ConfigureIntegrationRequest: {
    default_url: { summary: 'The platform’s public API', value: { api_key: 'pa_live_4f8a2c9e1b7d3f60a5c2', webhook_secret: 'whsec_9c1e7a3f5b2d8e4c6a0f' } },
    own_url: {
      summary: 'A platform API at another address',
      value: { api_key: 'pa_live_4f8a2c9e1b7d3f60a5c2', webhook_secret: 'whsec_9c1e7a3f5b2d8e4c6a0f', base_url: 'https://eu.api.platform-a.example/' },
    },
  },
  CreateAgentRequest: {
    minimal: { summary: 'Only the required fields (a number is provisioned)', value: { name: 'Front desk', voice_platform: 'platform_a' } },
    full: {
      summary: 'Every field',
      value: {
        name: AGENT_EXAMPLE.name,
        voice_platform: AGENT_EXAMPLE.voice_platform,
        phone_number: AGENT_EXAMPLE.phone_number,
        voice_id: AGENT_EXAMPLE.voice_id,
        language: AGENT_EXAMPLE.language,
        system_prompt: AGENT_EXAMPLE.system_prompt,
        welcome_message: AGENT_EXAMPLE.welcome_message,
        transfer_number: '+14155550199',
        business_hours: AGENT_EXAMPLE.business_hours,
        recording_enabled: true, transcription_enabled: true, pii_redaction: { enabled: true }, store_content: true, retention: AGENT_EXAMPLE.retention,
        metadata: AGENT_EXAMPLE.metadata,
      },
    },
  },
  UpdateAgentRequest: {
    pause: { summary: 'Pause the agent', value: { status: 'paused' } },
    edit: { summary: 'Change the greeting and replace the metadata', value: { welcome_message: 'We are closed today.', metadata: { team: 'support' } } },
    clear: { summary: 'Clear the business hours and the transfer number', value: { business_hours: null, transfer_number: null } },
    privacy: { summary: 'Redact card and social security numbers from what is stored', value: { pii_redaction: { enabled: true, categories: ['credit_card', 'ssn'] } } },
    retention: { summary: 'Keep conversations a year and recordings 30 days', value: { retention: { conversations_days: 365, recordings_days: 30 } } },
  },
  CreateApiKeyRequest: {
    reporting: { summary: 'A read-only key for a reporting tool', value: { name: 'reporting', scopes: ['conversations:read'] } },
    ingest: { summary: 'A key for a voice platform’s ingestor', value: { name: 'platform_a ingest', scopes: ['call_events:write'] } },
  },
  CreateAccountRequest: {
    starter: { summary: 'A small account on one platform', value: { name: 'Acme Dental', plan: 'starter', agent_limit: 5, voice_platforms: ['platform_a'] } },
  },
  CallEvent: {
    started: { summary: 'One event: a call started', value: CALL_STARTED_EVENT_EXAMPLE },
    abandoned: {
      summary: 'One event: a call abandoned before anyone answered',
      value: { id: 'evt_01HZX9_1', type: 'call.abandoned', conversation_id: 'call_01HZX9', agent_id: AGENT_EXAMPLE.id, occurred_at: '2025-01-31T15:20:30Z', data: CALL_ABANDONED_DATA_EXAMPLE } satisfies CallEvent,
    },
  },
  CallEventBatch: {
    batch: { summary: 'A batch: a whole call, started → transcript → ended', value: CALL_EVENT_BATCH_EXAMPLE },
  },
};

/** The `examples` of a request schema: the values of its named examples (the named ones go on the request body). */
export const requestExamples = (name: keyof typeof REQUEST_EXAMPLES) => Object.values(REQUEST_EXAMPLES[name]).map((example) => example.value);

/** TRANSCRIPT_SEGMENTS_EXAMPLE as conversations-service renders it in each download format (the e2e suite compares them with real answers). */
export const TEXT_EXAMPLE = 'Agent: Hello, Acme Dental, how can I help?\nCaller: I would like to book a cleaning.\n';
export const SRT_EXAMPLE =
  '1\n00:00:00,000 --> 00:00:02,100\nAgent: Hello, Acme Dental, how can I help?\n\n' +
  '2\n00:00:02,400 --> 00:00:04,600\nCaller: I would like to book a cleaning.\n';
export const VTT_EXAMPLE =
  'WEBVTT\n\n00:00:00.000 --> 00:00:02.100\nAgent: Hello, Acme Dental, how can I help?\n\n' +
  '00:00:02.400 --> 00:00:04.600\nCaller: I would like to book a cleaning.\n';
