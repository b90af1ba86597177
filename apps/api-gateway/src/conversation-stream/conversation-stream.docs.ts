import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import { CONVERSATION_CHANGE_TYPES, CONVERSATION_CHANGES_RETENTION, CONVERSATION_STATUSES, LIST_FILTER_LIMITS } from '@voice/contracts';
import { CONVERSATION_LIST_ITEM_EXAMPLES } from '../openapi/examples.js';
import { enumOf, ref, string } from '../openapi/json-schema.js';
import { ApiErrors, ApiFilter, ApiRoute } from '../openapi/route-docs.js';
import { DEFAULT_CONVERSATION_STREAM_SETTINGS, EVENT_ID_PATTERN, LAST_EVENT_ID_HEADER, sseComment, sseEvent, sseRetry } from './conversation-stream.rules.js';

const defaults = DEFAULT_CONVERSATION_STREAM_SETTINGS;
const retentionHours = CONVERSATION_CHANGES_RETENTION.maxAgeMs / 3_600_000;

/** What a client reads: the opening lines, two events, a heartbeat. */
const STREAM_EXAMPLE =
  sseRetry(1000) +
  sseComment('stream open') +
  sseEvent('1767225600000-1041', 'conversation.created', JSON.stringify(CONVERSATION_LIST_ITEM_EXAMPLES[1])) +
  sseEvent('1767225600000-1042', 'conversation.updated', JSON.stringify(CONVERSATION_LIST_ITEM_EXAMPLES[0])) +
  sseComment('heartbeat');

const DESCRIPTION =
  'Server-Sent Events (`text/event-stream`, e.g. with the browser’s EventSource) of the account’s conversations as they are recorded: ' +
  `\`${CONVERSATION_CHANGE_TYPES[0]}\` when a conversation first appears, \`${CONVERSATION_CHANGE_TYPES[1]}\` when it changes. Each event’s \`data\` is one ` +
  'line of JSON, the conversation exactly as an item of GET /v1/conversations (ConversationListItem); its `id` is an opaque position, increasing within a stream. ' +
  'An event is sent within a second of the call event’s acceptance; events of one conversation arrive in order and never go back to an older state ' +
  '(two quick changes may arrive as one event carrying the newer). Only changes after the stream opened are sent: read the list first, then follow. ' +
  'agent_id and status select events exactly as they select list items (the status the conversation has now, so a call that ends leaves a ' +
  '`status=in_progress` stream); any other parameter is refused. ' +
  `To resume, send the last id received as the ${LAST_EVENT_ID_HEADER} header (EventSource does this when it reconnects): every event after it is sent, ` +
  `none twice. Events are kept ${retentionHours} hours (at most ${CONVERSATION_CHANGES_RETENTION.maxMessages.toLocaleString('en-US')} for all accounts); ` +
  `resuming from an id no longer kept, or one never sent, is 400 invalid_parameter with field ${LAST_EVENT_ID_HEADER}: reload the list and open the stream ` +
  `without it. A comment line (\`: heartbeat\`) is sent every ${defaults.heartbeatMs / 1000} s. At most ${defaults.perKey} streams may be open at once per API key ` +
  `and ${defaults.perAccount} per account, across all gateways; one more is 429 rate_limited (limit and current in the error). Opening a stream spends one ` +
  'read from the rate limit. A stream ends when the gateway shuts down or the client reads too slowly; the last lines say why and ask to reconnect ' +
  'after 1 s (`retry: 1000`), resuming with Last-Event-ID.';

export function ApiConversationStream(): MethodDecorator {
  return applyDecorators(
    ApiRoute('Conversations', 'Follow conversations live', DESCRIPTION),
    ApiHeader({
      name: LAST_EVENT_ID_HEADER,
      required: false,
      description: 'Resume after this event (its id); absent: events from now on.',
      schema: { type: 'string', pattern: EVENT_ID_PATTERN.source, maxLength: 33, examples: ['1767225600000-1042'] },
    }),
    ApiFilter('status', enumOf(CONVERSATION_STATUSES, { examples: ['in_progress'] }), 'Only conversations in this status.'),
    ApiFilter('agent_id', string({ maxLength: LIST_FILTER_LIMITS.text }), 'Only conversations of this agent.'),
    ApiResponse({
      status: 200,
      description: 'The stream, open until the client or the gateway closes it.',
      headers: { 'Cache-Control': { required: true, description: 'Never cached.', schema: { type: 'string', const: 'no-cache, no-transform' } as never } },
      content: {
        'text/event-stream': {
          schema: string({ description: 'Events `conversation.created` / `conversation.updated`, data: ConversationListItem (see x-event-data).' }),
          example: STREAM_EXAMPLE,
          'x-event-data': Object.fromEntries(CONVERSATION_CHANGE_TYPES.map((type) => [type, ref('ConversationListItem')])),
        } as never,
      },
    }),
    ApiErrors('invalid_parameter'),
  );
}

