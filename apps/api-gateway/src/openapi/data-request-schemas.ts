/** OpenAPI components of the data requests resource (erasure and access per caller). */
import type { TSchema } from '@sinclair/typebox';
import { AccessDocumentSchema, ConversationDetailSchema, CreateDataRequestPayload, DataRequestViewSchema, type AccessDocument, type DataRequestView } from '@voice/contracts';
import type { JsonSchema } from './json-schema.js';
import { payloadSchema } from './payload-schema.js';
import { CONVERSATION_DETAIL_EXAMPLE } from './examples.js';
import { viewComponent } from './view-component.js';

/** The access document's conversations are the ConversationDetail component. */
const NAMED = new Map<TSchema, string>([[ConversationDetailSchema, 'ConversationDetail']]);

const REQUEST_EXAMPLE: DataRequestView = {
  id: 'dr_0c1d2e3f4a5b6c7d8e9f0a1b',
  type: 'erasure',
  caller_number: '**********23',
  status: 'running',
  conversations_found: 1240,
  conversations_done: 500,
  created_at: '2025-03-01T10:00:00.000Z',
  completed_at: null,
  download_expires_at: null,
};

/** An access request's document, as GET /v1/data-requests/{id}/download serves it. */
export const ACCESS_DOCUMENT_EXAMPLE: AccessDocument = {
  request_id: 'dr_0c1d2e3f4a5b6c7d8e9f0a1b', caller_number: '**********23', generated_at: '2025-03-01T10:00:04.000Z', conversations: [CONVERSATION_DETAIL_EXAMPLE],
};

export function dataRequestComponents(): Record<string, JsonSchema> {
  return {
    DataRequest: viewComponent(DataRequestViewSchema, NAMED, [REQUEST_EXAMPLE]),
    CreateDataRequestRequest: payloadSchema(CreateDataRequestPayload, {
      annotations: {
        type: { description: 'erasure or access.' },
        // E.164 is at most 15 digits after the +: the pattern implies it, the length says it to a form.
        caller_number: { maxLength: 16, description: 'The caller, E.164.', examples: ['+14155550123'] },
      },
      examples: [{ type: 'erasure', caller_number: '+14155550123' }],
    }),
    AccessDocument: viewComponent(AccessDocumentSchema, NAMED, [ACCESS_DOCUMENT_EXAMPLE]),
  };
}
