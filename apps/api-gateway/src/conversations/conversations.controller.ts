import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  BOOLEAN_VALUES,
  CALL_EVENT_PATTERNS,
  CONVERSATION_SORT_FIELDS,
  CONVERSATION_STATUSES,
  ConversationsRpc,
  LIST_FILTER_LIMITS,
  SENTIMENTS,
  SORT_ORDERS,
  TRANSCRIPT_FORMATS,
  type ConversationDetail,
  type ConversationListItem,
  type GetConversationRequest,
  type GetTranscriptRequest,
  type ListConversationsRequest,
  type PageResult,
  type RawQuery,
  type TranscriptReply,
} from '@voice/contracts';
import { RequireScope } from '../auth/access.decorators.js';
import { SRT_EXAMPLE, TEXT_EXAMPLE, VTT_EXAMPLE } from '../openapi/examples.js';
import { enumOf, integer, ref, string } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiFilter, ApiIdParam, ApiPagination, ApiRoute, envelopeOf, RESPONSE_HEADERS } from '../openapi/route-docs.js';
import { apiFailure } from '../http/api-failure.js';
import { listEnvelope, success } from '../http/envelope.js';
import { callerOf, requestIdOf } from '../http/gateway-request.js';
import { ServiceClient } from '../rpc/service-client.js';
import { transcriptFormat } from './transcript-format.js';

/** Quoted per RFC 6266; anything outside a conservative set is replaced so the header can never be broken out of. */
function attachmentHeader(filename: string): string {
  return `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}

@Controller('v1/conversations')
export class ConversationsController {
  constructor(private readonly services: ServiceClient) {}

  @Get()
  @RequireScope('conversations:read')
  @ApiRoute('Conversations', 'List conversations', 'Filters combine; date filters compare against the start time. Unknown parameters are refused.')
  @ApiPagination()
  @ApiFilter('agent_id', string({ maxLength: LIST_FILTER_LIMITS.text }), 'Only conversations of this agent.')
  @ApiFilter('status', enumOf(CONVERSATION_STATUSES), 'Only conversations in this status.')
  @ApiFilter('sentiment', enumOf(SENTIMENTS), 'Only conversations with this sentiment.')
  @ApiFilter('outcome', string({ maxLength: LIST_FILTER_LIMITS.text }), 'Only conversations with this outcome (case-insensitive).')
  @ApiFilter('caller', string({ pattern: CALL_EVENT_PATTERNS.e164.source, maxLength: 16, examples: ['+14155550123'] }), 'Caller phone number, E.164.')
  @ApiFilter('min_duration', integer({ minimum: 0 }), 'Minimum duration in seconds.')
  @ApiFilter('max_duration', integer({ minimum: 0 }), 'Maximum duration in seconds (not below min_duration).')
  @ApiFilter('start_date', string({ format: 'date-time', maxLength: LIST_FILTER_LIMITS.date }), 'ISO 8601; conversations starting on or after it.')
  @ApiFilter('end_date', string({ format: 'date-time', maxLength: LIST_FILTER_LIMITS.date }), 'ISO 8601; conversations starting on or before it (a date alone means the whole day).')
  @ApiFilter('has_recording', enumOf(BOOLEAN_VALUES), 'With or without a recording.')
  @ApiFilter('has_transcript', enumOf(BOOLEAN_VALUES), 'With or without a transcript.')
  @ApiFilter('search', string({ maxLength: LIST_FILTER_LIMITS.text }), 'Full-text search over transcripts and summaries, partial words match.')
  @ApiFilter('topic', string({ maxLength: LIST_FILTER_LIMITS.text }), 'Detected topic or keyword (case-insensitive).')
  @ApiFilter('sort_by', enumOf(CONVERSATION_SORT_FIELDS, { default: 'start_time' }), 'Sort field.')
  @ApiFilter('sort_order', enumOf(SORT_ORDERS, { default: 'desc' }), 'Sort direction.')
  @ApiEnvelope(200, 'ConversationListItem', { description: 'One page of conversations; an empty page has an empty data array.', list: true })
  @ApiErrors('invalid_parameter', 'invalid_date_format')
  async list(@Req() req: Request, @Query() query: RawQuery) {
    const payload: ListConversationsRequest = { account_id: callerOf(req).account.id, query: { ...query } };
    const page = await this.services.send<PageResult<ConversationListItem>>(ConversationsRpc.list, payload, { requestId: requestIdOf(req) });
    return listEnvelope(req, page);
  }

  @Get(':id')
  @RequireScope('conversations:read')
  @ApiRoute('Conversations', 'Get a conversation', 'Every field of the list item plus transcript, recording, analytics, outcomes and technical data.')
  @ApiIdParam('Conversation id.')
  @ApiEnvelope(200, 'ConversationDetail', { description: 'The conversation.' })
  @ApiErrors('not_found')
  async get(@Req() req: Request, @Param('id') id: string) {
    const payload: GetConversationRequest = { account_id: callerOf(req).account.id, conversation_id: id };
    const detail = await this.services.send<ConversationDetail>(ConversationsRpc.get, payload, { requestId: requestIdOf(req) });
    return success(req, detail);
  }

  @Get(':id/transcript')
  @RequireScope('conversations:read')
  @ApiRoute(
    'Conversations',
    'Get a transcript',
    '`?format=` (case-insensitive) wins; otherwise the Accept type with the highest q above 0 among application/json, text/plain, ' +
      'application/x-subrip and text/vtt (ties in that order; no Accept means JSON). An Accept that admits none of them is 406 not_acceptable.',
  )
  @ApiIdParam('Conversation id.')
  @ApiQuery({ name: 'format', required: false, description: 'Overrides Accept; case-insensitive.', schema: { type: 'string', enum: [...TRANSCRIPT_FORMATS] } })
  @ApiHeader({ name: 'Accept', required: false, description: 'Chooses the format when ?format= is absent.', schema: { type: 'string' } })
  @ApiResponse({
    status: 200,
    description: 'The transcript: JSON in the envelope, or a text/SRT/VTT download.',
    headers: { Vary: RESPONSE_HEADERS.Vary, 'Content-Disposition': { ...RESPONSE_HEADERS['Content-Disposition'], description: 'Only for text, SRT and VTT.' } },
    content: {
      'application/json': { schema: envelopeOf(ref('Transcript')) as never },
      'text/plain': { schema: { type: 'string' }, example: TEXT_EXAMPLE },
      'application/x-subrip': { schema: { type: 'string' }, example: SRT_EXAMPLE },
      'text/vtt': { schema: { type: 'string' }, example: VTT_EXAMPLE },
    },
  })
  @ApiErrors('invalid_parameter', 'not_found', 'not_acceptable', 'transcript_not_available')
  async transcript(@Req() req: Request, @Res({ passthrough: true }) res: Response, @Param('id') id: string) {
    // The representation depends on Accept when ?format= is absent; caches must key on it.
    res.vary('Accept');
    const choice = transcriptFormat(req.query.format, req.get('accept'));
    if (!choice.ok) {
      throw apiFailure(
        'not_acceptable',
        `None of the media types in Accept can be produced; this endpoint serves ${choice.supported.join(', ')} (or choose with ?format=${TRANSCRIPT_FORMATS.join('|')}).`,
        { valid_values: choice.supported },
      );
    }
    const payload: GetTranscriptRequest = { account_id: callerOf(req).account.id, conversation_id: id, format: choice.format };
    const reply = await this.services.send<TranscriptReply>(ConversationsRpc.transcript, payload, { requestId: requestIdOf(req) });
    if (reply.format === 'json') return success(req, reply.transcript);
    res.type(reply.content_type).set('Content-Disposition', attachmentHeader(reply.filename));
    return reply.body;
  }
}
