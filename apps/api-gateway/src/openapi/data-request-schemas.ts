/** OpenAPI components of the data requests resource (erasure and access per caller). */
import type { TSchema } from '@sinclair/typebox';
import { CALL_EVENT_PATTERNS, DATA_REQUEST_TYPES, DataRequestViewSchema, type DataRequestView } from '@voice/contracts';
import { arrayOf, dateTime, enumOf, ref, string, type JsonSchema } from './json-schema.js';
import { CONVERSATION_DETAIL_EXAMPLE } from './examples.js';
import { viewComponent } from './view-component.js';

const NAMED = new Map<TSchema, string>();

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
export const ACCESS_DOCUMENT_EXAMPLE = {
  request_id: 'dr_0c1d2e3f4a5b6c7d8e9f0a1b', caller_number: '**********23', generated_at: '2025-03-01T10:00:04.000Z', conversations: [CONVERSATION_DETAIL_EXAMPLE],
};

export function dataRequestComponents(): Record<string, JsonSchema> {
  return {
    DataRequest: viewComponent(DataRequestViewSchema, NAMED, [REQUEST_EXAMPLE]),
    CreateDataRequestRequest: {
      type: 'object',
      required: ['type', 'caller_number'],
      properties: {
        type: enumOf(DATA_REQUEST_TYPES, { description: 'erasure or access.' }),
        caller_number: string({ pattern: CALL_EVENT_PATTERNS.e164.source, maxLength: 16, description: 'The caller, E.164.', examples: ['+14155550123'] }),
      },
      additionalProperties: false,
      examples: [{ type: 'erasure', caller_number: '+14155550123' }],
    },
    AccessDocument: {
      type: 'object',
      description: 'Every stored conversation of the caller in the account, as GET /v1/conversations/{id} shows it.',
      required: ['request_id', 'caller_number', 'generated_at', 'conversations'],
      properties: {
        request_id: string(),
        caller_number: string({ description: 'Masked but for the last 2 digits (each conversation carries the number as stored).' }),
        generated_at: dateTime,
        conversations: arrayOf(ref('ConversationDetail')),
      },
      additionalProperties: false,
      examples: [ACCESS_DOCUMENT_EXAMPLE],
    },
  };
}
