/** The agent as the API returns it (interface 2.1), with where it stands on its voice platform: one schema per view, its type derived. */
import { Type, type Static } from '@sinclair/typebox';
import { AGENT_LIMITS, E164_PATTERN, ISO_639_1_CODES, METADATA_KEY_PATTERN } from './agent-payloads.js';
import { AGENT_STATUSES, PII_REDACTION_CATEGORIES, RETENTION_DAYS, PLATFORM_NUMBER_DRIFTS, PLATFORM_SYNC_STATES, VOICE_PLATFORMS, WEEKDAYS } from './agents.js';
import { RESERVED_KEYS } from './validation.js';
import { ClosedObject, DateTime, Nullable, NullableString, StringEnum } from './view-schema.js';

const E164 = (options: { description?: string } = {}) => Type.String({ pattern: E164_PATTERN.source, examples: ['+14155550100'], ...options });

export const ScheduleItemSchema = ClosedObject({
  day: StringEnum(WEEKDAYS),
  open: Type.String({ description: 'HH:MM, 24-hour.' }),
  close: Type.String({ description: 'HH:MM, later than open.' }),
});
export type ScheduleItem = Static<typeof ScheduleItemSchema>;

export const BusinessHoursSchema = ClosedObject({
  timezone: Type.String({ description: 'IANA time zone name.' }),
  schedule: Type.Array(ScheduleItemSchema),
});
export type BusinessHours = Static<typeof BusinessHoursSchema>;

/** Our fields the platform held otherwise, the number's fate, and whether it was all set back. */
export const PlatformDriftViewSchema = ClosedObject(
  {
    found_at: DateTime(),
    repaired_at: Nullable(DateTime({ description: 'When the platform held the agent as ours again; null while the repair is pending or failed (then last_error says why).' })),
    platform: StringEnum(VOICE_PLATFORMS),
    agent_missing: Type.Boolean({ description: 'The platform agent was gone (deleted in the platform’s dashboard, or the platform forgot it): it is recreated, with a new platform_agent_id.' }),
    number: Nullable(
      StringEnum(PLATFORM_NUMBER_DRIFTS, {
        description:
          'What had become of the agent’s number: missing (released or forgotten: an imported number is imported again, a bought one is replaced by a new purchase), ' +
          'unbound (answering nothing), bound_elsewhere (answering for another agent), bound_while_paused (answering for a paused agent). null: the number was as ours.',
      }),
    ),
    changed_fields: Type.Array(Type.String(), { description: 'Our fields the platform held otherwise (e.g. system_prompt edited in its dashboard): set back to ours.' }),
    phone_number_before: Nullable(E164()),
    phone_number_after: Nullable(E164({ description: 'The agent’s number after the repair: a new one when a bought number was gone (the agent’s phone_number changed).' })),
  },
  {
    description:
      'The latest difference the background reconciliation found between the agent and its platform. We are the source of truth: what it found is set back, ' +
      'and the agent shows platform_sync pending until it is.',
  },
);
export type PlatformDriftView = Static<typeof PlatformDriftViewSchema>;

export const PlatformSyncViewSchema = ClosedObject(
  {
    state: StringEnum(PLATFORM_SYNC_STATES, {
      description:
        'synced: the platform holds the agent as its current version (ETag) wants it. pending: not yet — just changed, or the platform was ' +
        'unreachable, slow, 429 or 5xx and a background retry is scheduled. failed: the platform refused the current version for good ' +
        '(last_error says why); it waits for the next change of the agent or of its integration.',
    }),
    platform_agent_id: NullableString({ description: 'The platform’s id of the agent (platform_a agent_id, platform_b assistant id), once created there.' }),
    synced_version: Nullable(Type.Integer({ minimum: 1, description: 'The agent version the platform last fully reflected.' })),
    last_attempt_at: Nullable(DateTime()),
    last_error: Nullable(
      ClosedObject({
        code: Type.String(),
        message: Type.String(),
        field: Type.Optional(Type.String({ description: 'Our field the platform objected to, when known.' })),
      }),
    ),
    last_reconciled_at: Nullable(
      DateTime({
        description:
          'When the background reconciliation last compared the agent with its platform (every PLATFORM_RECONCILE_INTERVAL_MS, 60 s by default); null: not yet.',
      }),
    ),
    last_drift: Nullable(PlatformDriftViewSchema),
  },
  { description: 'Where the agent stands on its voice platform.' },
);
export type PlatformSyncView = Static<typeof PlatformSyncViewSchema>;

/** Keys and values as create and update accept them (the same limits). */
export const AgentMetadataSchema = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: AGENT_LIMITS.metadataKeys,
  propertyNames: { pattern: METADATA_KEY_PATTERN.source, not: { enum: [...RESERVED_KEYS] } },
  additionalProperties: { type: 'string', maxLength: AGENT_LIMITS.metadataValue },
});

export const PiiRedactionSchema = ClosedObject(
  {
    enabled: Type.Boolean({ description: 'Redact personal data from transcripts, summaries, analysis and topics before they are stored. Default false.' }),
    categories: Type.Array(StringEnum(PII_REDACTION_CATEGORIES), {
      uniqueItems: true,
      description:
        'What is redacted, each match replaced by its category in capitals ([CREDIT_CARD]). Default: every category but caller_number; ' +
        'caller_number keeps only the last 2 digits of the caller’s number.',
    }),
  },
  { description: 'Redaction at ingest: irreversible, nothing unredacted is stored.' },
);
export type PiiRedaction = Static<typeof PiiRedactionSchema>;

const retentionDays = (description: string) =>
  Nullable(Type.Integer({ minimum: RETENTION_DAYS.min, maximum: RETENTION_DAYS.max, description: `${description} Default null.` }));

export const RetentionSchema = ClosedObject(
  {
    conversations_days: retentionDays('Days a conversation is kept after its call; past them it is erased from every store. null keeps it.'),
    recordings_days: retentionDays('Days a recording URL is kept after its call; past them it is removed (has_recording false). null keeps it.'),
  },
  { description: 'How long the agent’s conversations and recordings are kept.' },
);
export type Retention = Static<typeof RetentionSchema>;

/** The agent as returned by the API: every field of 2.1, nulls where unset. */
export const AgentViewSchema = ClosedObject(
  {
    id: Type.String({ examples: ['agt_5f0c3b8a9d2e4f6a7b8c9d0e'] }),
    name: Type.String({ minLength: 1, maxLength: AGENT_LIMITS.name }),
    voice_platform: StringEnum(VOICE_PLATFORMS),
    phone_number: Nullable(E164({ description: 'The number the platform answers on. null only while a number to buy is still pending on the platform (platform_sync pending).' })),
    voice_id: Type.String({ maxLength: AGENT_LIMITS.voiceId }),
    // Typed string: agent states and fixtures hold it as a plain string; the schema lists the codes.
    language: Type.Unsafe<string>({ type: 'string', enum: [...ISO_639_1_CODES], description: 'ISO 639-1 code.' }),
    system_prompt: NullableString({ maxLength: AGENT_LIMITS.systemPrompt }),
    welcome_message: NullableString({ maxLength: AGENT_LIMITS.welcomeMessage }),
    transfer_number: Nullable(E164()),
    business_hours: Nullable(BusinessHoursSchema),
    recording_enabled: Type.Boolean(),
    transcription_enabled: Type.Boolean(),
    pii_redaction: PiiRedactionSchema,
    store_content: Type.Boolean({
      description: 'false: zero-retention mode, only metadata and analytics are stored (no transcript, summary, analysis text, topics or recording URL). Default true.',
    }),
    retention: RetentionSchema,
    status: StringEnum(AGENT_STATUSES),
    metadata: AgentMetadataSchema,
    created_at: DateTime(),
    updated_at: DateTime(),
    platform_sync: PlatformSyncViewSchema,
  },
  { description: 'An AI phone agent (interface 2.1). Unset optional fields are null.' },
);
export type AgentView = Static<typeof AgentViewSchema>;
