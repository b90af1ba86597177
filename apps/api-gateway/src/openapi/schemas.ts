import type { TSchema } from '@sinclair/typebox';
import {
  ApiErrorSchema, AgentViewSchema, BusinessHoursSchema, CALL_EVENT_DEFINITION_SCHEMAS, ConversationDetailSchema, ConversationListItemSchema,
  ERROR_CATALOG, IntegrationViewSchema, MAX_CALL_EVENTS_PER_BATCH, PlatformDriftViewSchema, PlatformSyncViewSchema, TranscriptViewSchema,
} from '@voice/contracts';
import { CreatedAccountSchema } from '../accounts/created-account.view.js';
import { ApiKeyViewSchema, CreatedApiKeySchema } from '../auth/api-key.views.js';
import { CallEventsAcceptedSchema } from '../call-events/call-events-accepted.view.js';
import { HealthSchema } from '../health/health.view.js';
import { ListMetaSchema, MetaSchema } from '../http/envelope.js';
import { PageLinksSchema } from '../http/pagination.js';
import { callEventComponents, componentName } from './call-event-schema.js';
import { conversationStatsSchema } from './conversation-stats-schema.js';
import { ERROR_EXAMPLES } from './error-examples.js';
import {
  AGENT_EXAMPLE, API_KEY_EXAMPLES, CALL_EVENTS_ACCEPTED_EXAMPLE, CONVERSATION_DETAIL_EXAMPLE, CONVERSATION_LIST_ITEM_EXAMPLES,
  CONVERSATIONS_PAGE_EXAMPLE, CREATED_ACCOUNT_EXAMPLE, CREATED_API_KEY_EXAMPLE, HEALTH_EXAMPLE, HEALTH_UNAVAILABLE_EXAMPLE,
  INTEGRATION_VIEW_EXAMPLES, listExample, META_EXAMPLE, PAUSED_AGENT_EXAMPLE, REQUEST_ID_EXAMPLE, requestExamples, TRANSCRIPT_EXAMPLE,
} from './examples.js';
import { auditEventComponents } from './audit-event-schemas.js';
import { dataRequestComponents } from './data-request-schemas.js';
import { arrayOf, ref, type JsonSchema } from './json-schema.js';
import { requestComponents } from './request-schemas.js';
import { viewComponent } from './view-component.js';
import { webhookEndpointComponents } from './webhook-endpoint-schemas.js';
import { webhookComponents } from './webhook-schemas.js';

/**
 * Every named schema of the document. The responses' schemas are the views' own (TypeBox schemas beside the code
 * that answers them); only their examples are added here.
 */

/** The views' schemas that are components of their own: another view embedding one shows a $ref. */
const NAMED_VIEWS = new Map<TSchema, string>([
  [AgentViewSchema, 'Agent'],
  [PlatformSyncViewSchema, 'PlatformSync'],
  [PlatformDriftViewSchema, 'PlatformDrift'],
  [BusinessHoursSchema, 'BusinessHours'],
  [ConversationListItemSchema, 'ConversationListItem'],
  [ConversationDetailSchema, 'ConversationDetail'],
  [TranscriptViewSchema, 'Transcript'],
  [IntegrationViewSchema, 'Integration'],
  ...Object.entries(CALL_EVENT_DEFINITION_SCHEMAS).map(([definition, schema]) => [schema, componentName(definition)] as const),
]);
const agent = viewComponent(AgentViewSchema, NAMED_VIEWS, [AGENT_EXAMPLE, PAUSED_AGENT_EXAMPLE]);
const platformSync = viewComponent(PlatformSyncViewSchema, NAMED_VIEWS, [AGENT_EXAMPLE.platform_sync]);
const platformDrift = viewComponent(PlatformDriftViewSchema, NAMED_VIEWS, [PAUSED_AGENT_EXAMPLE.platform_sync.last_drift!]);

const conversationListItem = viewComponent(ConversationListItemSchema, NAMED_VIEWS, CONVERSATION_LIST_ITEM_EXAMPLES);
const conversationDetail = viewComponent(ConversationDetailSchema, NAMED_VIEWS, [CONVERSATION_DETAIL_EXAMPLE]);
const transcript = viewComponent(TranscriptViewSchema, NAMED_VIEWS, [TRANSCRIPT_EXAMPLE]);

const callEventBatch: JsonSchema = {
  type: 'object',
  required: ['events'],
  properties: { events: arrayOf(ref('CallEvent'), { minItems: 1, maxItems: MAX_CALL_EVENTS_PER_BATCH }) },
  additionalProperties: false,
  examples: requestExamples('CallEventBatch'),
};
const callEventsAccepted = viewComponent(CallEventsAcceptedSchema, NAMED_VIEWS, [CALL_EVENTS_ACCEPTED_EXAMPLE]);

const apiKey = viewComponent(ApiKeyViewSchema, NAMED_VIEWS, API_KEY_EXAMPLES);
const createdApiKey = viewComponent(CreatedApiKeySchema, NAMED_VIEWS, [CREATED_API_KEY_EXAMPLE]);
const integration = viewComponent(IntegrationViewSchema, NAMED_VIEWS, INTEGRATION_VIEW_EXAMPLES);
const createdAccount = viewComponent(CreatedAccountSchema, NAMED_VIEWS, [CREATED_ACCOUNT_EXAMPLE]);
const health = viewComponent(HealthSchema, NAMED_VIEWS, [HEALTH_EXAMPLE, HEALTH_UNAVAILABLE_EXAMPLE]);

/** The conversations list example's page (2 of 107), as the gateway's own pagination helpers write it. */
const PAGE_EXAMPLE = listExample('/v1/conversations', CONVERSATION_LIST_ITEM_EXAMPLES, CONVERSATIONS_PAGE_EXAMPLE);
const meta = viewComponent(MetaSchema, NAMED_VIEWS, [META_EXAMPLE]);
const pageMetaSchema = viewComponent(ListMetaSchema, NAMED_VIEWS, [PAGE_EXAMPLE.meta]);
const links = viewComponent(PageLinksSchema, NAMED_VIEWS, [PAGE_EXAMPLE.links]);
const apiError = viewComponent(ApiErrorSchema, NAMED_VIEWS, [
  { type: ERROR_CATALOG.invalid_parameter.type, code: 'invalid_parameter', ...ERROR_EXAMPLES.invalid_parameter, request_id: REQUEST_ID_EXAMPLE },
  { type: ERROR_CATALOG.not_found.type, code: 'not_found', ...ERROR_EXAMPLES.not_found, request_id: REQUEST_ID_EXAMPLE },
]);

/** Every named schema of the document. */
export function componentSchemas(): Record<string, JsonSchema> {
  const requests = requestComponents();
  return {
    ...callEventComponents(),
    ...webhookComponents(),
    Agent: agent,
    PlatformSync: platformSync,
    PlatformDrift: platformDrift,
    BusinessHours: requests.BusinessHours,
    ScheduleItem: requests.ScheduleItem,
    PiiRedactionRequest: requests.PiiRedactionRequest,
    RetentionRequest: requests.RetentionRequest,
    CreateAgentRequest: requests.CreateAgentRequest,
    UpdateAgentRequest: requests.UpdateAgentRequest,
    ConversationListItem: conversationListItem,
    ConversationDetail: conversationDetail,
    ConversationStats: conversationStatsSchema,
    Transcript: transcript,
    CallEventBatch: callEventBatch,
    CallEventsAccepted: callEventsAccepted,
    ApiKey: apiKey,
    CreatedApiKey: createdApiKey,
    CreateApiKeyRequest: requests.CreateApiKeyRequest,
    CreateAccountRequest: requests.CreateAccountRequest,
    CreatedAccount: createdAccount,
    Integration: integration,
    ...webhookEndpointComponents(),
    ...dataRequestComponents(),
    ...auditEventComponents(),
    ConfigureIntegrationRequest: requests.ConfigureIntegrationRequest,
    Health: health,
    Meta: meta,
    PageMeta: pageMetaSchema,
    PageLinks: links,
    Error: apiError,
  };
}
