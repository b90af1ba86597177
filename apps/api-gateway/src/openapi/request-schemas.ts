import {
  ConfigureIntegrationPayload,
  DEFAULT_PLATFORM_BASE_URLS,
  AGENT_LIMITS,
  BusinessHoursPayload,
  CreateAgentPayload,
  METADATA_KEY_PATTERN,
  PII_REDACTION_CATEGORIES,
  PiiRedactionPayload,
  RESERVED_KEYS,
  RetentionPayload,
  ScheduleItemPayload,
  UpdateAgentPayload,
  type BusinessHours,
  type ScheduleItem,
} from '@voice/contracts';
import { CreateAccountBody } from '../accounts/create-account.body.js';
import { CreateApiKeyBody } from '../api-keys/create-api-key.body.js';
import { requestExamples } from './examples.js';
import { string, type JsonSchema } from './json-schema.js';
import { payloadSchema } from './payload-schema.js';

/**
 * The request bodies' schemas, derived from the classes that validate them
 * (payloadSchema); only what a decorator cannot carry is written here.
 */

const phoneNumberExample = { examples: ['+14155550100'] };

/** findMetadataProblem checks these in code, not with decorators, so they are stated here; test/contracts holds them to it. */
export const AGENT_METADATA_RULES: JsonSchema = {
  maxProperties: AGENT_LIMITS.metadataKeys,
  propertyNames: { pattern: METADATA_KEY_PATTERN.source, not: { enum: [...RESERVED_KEYS] } },
  additionalProperties: string({ maxLength: AGENT_LIMITS.metadataValue }),
};

const scheduleItem = payloadSchema(ScheduleItemPayload, {
  annotations: {
    open: { examples: ['09:00'] },
    close: { description: 'Later than open (no overnight spans).', examples: ['17:00'] },
  },
  statedInWords: ['isAfterOpen'],
  examples: [{ day: 'monday', open: '09:00', close: '17:00' }] satisfies ScheduleItem[],
});

const businessHours = payloadSchema(BusinessHoursPayload, {
  nested: { schedule: 'ScheduleItem' },
  annotations: {
    // IsIanaTimeZone is a custom rule, so nothing derived says the value is a string.
    timezone: { type: 'string', description: 'IANA time zone name.', examples: ['Europe/Paris'] },
    // findScheduleProblem refuses a repeated weekday in code; uniqueItems would compare whole items, not days.
    schedule: { description: 'Each weekday at most once.' },
  },
  statedInWords: ['isIanaTimeZone'],
  examples: [
    {
      timezone: 'America/New_York',
      schedule: [
        { day: 'monday', open: '09:00', close: '17:00' },
        { day: 'tuesday', open: '09:00', close: '17:00' },
        { day: 'saturday', open: '10:00', close: '14:00' },
      ],
    },
  ] satisfies BusinessHours[],
});

const piiRedaction = payloadSchema(PiiRedactionPayload, {
  description: 'Replaced whole on PATCH. Redaction happens at ingest, before anything is stored: irreversible.',
  annotations: {
    enabled: { description: 'Default false.' },
    // findPiiCategoriesProblem checks the items in code (the field names the item), so they are stated here.
    categories: {
      items: { type: 'string', enum: [...PII_REDACTION_CATEGORIES] },
      uniqueItems: true,
      description: 'Default: every category but caller_number (which keeps the caller’s number as its last 2 digits). [] redacts nothing.',
    },
  },
  examples: [{ enabled: true, categories: ['credit_card', 'ssn', 'phone_number', 'email'] }],
});

const retention = payloadSchema(RetentionPayload, {
  description: 'Replaced whole on PATCH: an omitted or null limit keeps that data.',
  annotations: {
    conversations_days: { description: 'Days a conversation is kept after its call; past them it is erased from every store. null keeps it.' },
    recordings_days: { description: 'Days a recording URL is kept after its call; past them it is removed (has_recording false). null keeps it.' },
  },
  examples: [{ conversations_days: 365, recordings_days: 30 }],
});

/** Annotations shared by create and update. */
const agentAnnotations: Record<string, JsonSchema> = {
  name: { description: 'Trimmed; unique within the account.' },
  voice_platform: { description: 'Must be configured for the account.' },
  transfer_number: phoneNumberExample,
  metadata: AGENT_METADATA_RULES,
  store_content: { description: 'false: zero-retention mode, only metadata and analytics are stored (no transcript, summary, analysis text, topics or recording URL). Default true.' },
};

const createAgent = payloadSchema(CreateAgentPayload, {
  description: 'id, status, created_at and updated_at are read-only and refused. null means "omitted".',
  nested: { business_hours: 'BusinessHours', pii_redaction: 'PiiRedactionRequest', retention: 'RetentionRequest' },
  annotations: { ...agentAnnotations, phone_number: { ...phoneNumberExample, description: 'Omitted → a number is provisioned.' } },
  examples: requestExamples('CreateAgentRequest'),
});

const updateAgent = payloadSchema(UpdateAgentPayload, {
  description:
    'Partial update. null clears system_prompt, welcome_message, transfer_number, business_hours and metadata (→ {}); it is invalid for every other field. metadata replaces the whole object.',
  nested: { business_hours: 'BusinessHours', pii_redaction: 'PiiRedactionRequest', retention: 'RetentionRequest' },
  annotations: { ...agentAnnotations, phone_number: phoneNumberExample, status: { description: 'Pause or resume the agent.' } },
  examples: requestExamples('UpdateAgentRequest'),
});

const createApiKey = payloadSchema(CreateApiKeyBody, {
  annotations: { scopes: { description: 'A subset of the calling key’s scopes.' } },
  examples: requestExamples('CreateApiKeyRequest'),
});

const createAccount = payloadSchema(CreateAccountBody, {
  annotations: { plan: { description: 'Free-form plan label.' } },
  examples: requestExamples('CreateAccountRequest'),
});

const configureIntegration = payloadSchema(ConfigureIntegrationPayload, {
  description: 'Creates or replaces the integration. The secrets are stored encrypted and never returned.',
  annotations: {
    api_key: { description: 'The platform API key, sent as `Authorization: Bearer <api_key>` to the platform: visible ASCII only (! to ~), as a header carries it unchanged.' },
    webhook_secret: { description: 'The secret the platform signs its webhooks with (HMAC key), as the platform shows it: visible ASCII only (! to ~).' },
    base_url: { format: 'uri', description: `The platform API: an absolute http or https URL, without spaces, line breaks or other control characters. Default: ${Object.entries(DEFAULT_PLATFORM_BASE_URLS).map(([p, u]) => `${p} ${u}`).join(', ')}.` },
  },
  examples: requestExamples('ConfigureIntegrationRequest'),
  statedInWords: ['isHttpUrl'],
});

/** The request-body components. */
export function requestComponents(): Record<string, JsonSchema> {
  return {
    BusinessHours: businessHours,
    ScheduleItem: scheduleItem,
    PiiRedactionRequest: piiRedaction,
    RetentionRequest: retention,
    CreateAgentRequest: createAgent,
    UpdateAgentRequest: updateAgent,
    CreateApiKeyRequest: createApiKey,
    CreateAccountRequest: createAccount,
    ConfigureIntegrationRequest: configureIntegration,
  };
}
