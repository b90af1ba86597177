import { applyDecorators, Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  BOOLEAN_VALUES,
  CALL_EVENT_PATTERNS,
  CONVERSATION_SORT_FIELDS,
  CONVERSATION_STATUSES,
  ConversationsRpc,
  DURATION_HISTOGRAM_BOUNDS,
  LIST_FILTER_LIMITS,
  MAX_TIMELINE_POINTS,
  MAX_TOP_TOPICS,
  SENTIMENTS,
  SORT_ORDERS,
  STATS_BUCKETS,
  TRANSCRIPT_FORMATS,
  type ConversationDetail,
  type ConversationListItem,
  type ConversationStats,
  type ConversationStatsRequest,
  type GetConversationRequest,
  type GetTranscriptRequest,
  type ListConversationsRequest,
  type PageResult,
  type RawQuery,
  type StreamFilter,
  type StreamFilterRequest,
  type TranscriptReply,
} from '@voice/contracts';
import { RequireScope } from '../auth/access.decorators.js';
import { ApiConversationStream } from '../conversation-stream/conversation-stream.docs.js';
import { parseLastEventId } from '../conversation-stream/conversation-stream.rules.js';
import { ConversationStreams } from '../conversation-stream/conversation-streams.js';
import { SRT_EXAMPLE, TEXT_EXAMPLE, VTT_EXAMPLE } from '../openapi/examples.js';
import { enumOf, integer, ref, string } from '../openapi/json-schema.js';
import { ApiEnvelope, ApiErrors, ApiFilter, ApiIdParam, ApiPagination, ApiRoute, envelopeOf, RESPONSE_HEADERS } from '../openapi/route-docs.js';
import { ApiFailure, apiFailure } from '../http/api-failure.js';
import { listEnvelope, success } from '../http/envelope.js';
import { callerOf, headerOf, requestIdOf, varyOn } from '../http/gateway-request.js';
import { ServiceClient } from '../rpc/service-client.js';
import { transcriptFormat } from './transcript-format.js';

/** Quoted per RFC 6266; anything outside a conservative set is replaced so the header can never be broken out of. */
function attachmentHeader(filename: string): string {
  return `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}

/**
 * The filters the list and the stats share (unknown parameters are refused with invalid_parameter). Listed
 * in reverse: stacked decorators apply bottom-up and the document restores reading order, agent_id first.
 */
function ApiConversationFilters(): MethodDecorator {
  return applyDecorators(
    ApiFilter('topic', string({ maxLength: LIST_FILTER_LIMITS.text }), 'Detected topic or keyword (case-insensitive).'),
    ApiFilter('search', string({ maxLength: LIST_FILTER_LIMITS.text }), 'Full-text search over transcripts and summaries, partial words match.'),
    ApiFilter('has_transcript', enumOf(BOOLEAN_VALUES), 'With or without a transcript.'),
    ApiFilter('has_recording', enumOf(BOOLEAN_VALUES), 'With or without a recording.'),
    ApiFilter('end_date', string({ format: 'date-time', maxLength: LIST_FILTER_LIMITS.date }), 'ISO 8601; conversations starting on or before it (a date alone means the whole day).'),
    ApiFilter('start_date', string({ format: 'date-time', maxLength: LIST_FILTER_LIMITS.date }), 'ISO 8601; conversations starting on or after it.'),
    ApiFilter('max_cost', { type: 'number', minimum: 0 }, 'Maximum cost in USD (not below min_cost). Calls whose platform reported no cost do not match.'),
    ApiFilter('min_cost', { type: 'number', minimum: 0 }, 'Minimum cost in USD, a decimal such as 0.25 (no exponent). Calls whose platform reported no cost do not match.'),
    ApiFilter('max_duration', integer({ minimum: 0 }), 'Maximum duration in seconds (not below min_duration).'),
    ApiFilter('min_duration', integer({ minimum: 0 }), 'Minimum duration in seconds.'),
    ApiFilter('caller', string({ pattern: CALL_EVENT_PATTERNS.e164.source, maxLength: 16, examples: ['+14155550123'] }), 'Caller phone number, E.164.'),
    ApiFilter('outcome', string({ maxLength: LIST_FILTER_LIMITS.text }), 'Only conversations with this outcome (case-insensitive).'),
    ApiFilter('sentiment', enumOf(SENTIMENTS), 'Only conversations with this sentiment.'),
    ApiFilter('status', enumOf(CONVERSATION_STATUSES), 'Only conversations in this status.'),
    ApiFilter('agent_id', string({ maxLength: LIST_FILTER_LIMITS.text }), 'Only conversations of this agent.'),
  );
}

@Controller('v1/conversations')
export class ConversationsController {
  constructor(
    private readonly services: ServiceClient,
    private readonly liveStreams: ConversationStreams,
  ) {}

  @Get()
  @RequireScope('conversations:read')
  @ApiRoute('Conversations', 'List conversations', 'Filters combine; date filters compare against the start time. Unknown parameters are refused.')
  @ApiPagination()
  @ApiConversationFilters()
  @ApiFilter('sort_by', enumOf(CONVERSATION_SORT_FIELDS, { default: 'start_time' }), 'Sort field.')
  @ApiFilter('sort_order', enumOf(SORT_ORDERS, { default: 'desc' }), 'Sort direction.')
  @ApiEnvelope(200, 'ConversationListItem', { description: 'One page of conversations; an empty page has an empty data array.', list: true })
  @ApiErrors('invalid_parameter', 'invalid_date_format')
  async list(@Req() req: FastifyRequest, @Query() query: RawQuery) {
    const payload: ListConversationsRequest = { account_id: callerOf(req).account.id, query: { ...query } };
    const page = await this.services.send<PageResult<ConversationListItem>>(ConversationsRpc.list, payload, { requestId: requestIdOf(req) });
    return listEnvelope(req, page);
  }

  @Get('stats')
  @RequireScope('conversations:read')
  @ApiRoute(
    'Conversations',
    'Conversation statistics',
    'Exact figures over the conversations the filters select (the list’s filters, combined the same way; page, per_page, sort_by and sort_order ' +
      'are refused as unknown parameters). Durations are in seconds over every selected conversation (in-progress ones count with the duration ' +
      `reported so far); the histogram’s buckets are fixed: ${DURATION_HISTOGRAM_BOUNDS.map((b) => (b.max === null ? `${b.min}+` : `${b.min}–${b.max}`)).join(', ')} s ` +
      '(min inclusive, max exclusive). by_outcome counts conversations with an outcome; top_topics are the ' + `${MAX_TOP_TOPICS} most frequent ` +
      '(lower-cased) topics, count descending then topic ascending. The timeline counts conversations by start time per UTC hour or day: ' +
      'the bucket given, else hour when its range spans at most 2 days, else day; the range is start_date..end_date, or the selected data’s first ' +
      `to last start time where not given; every bucket of it is a point (zeros included), at most ${MAX_TIMELINE_POINTS} (more is 400 on bucket). ` +
      'cost.total sums the reported costs (calls without one add nothing).',
  )
  @ApiConversationFilters()
  @ApiFilter('bucket', enumOf(STATS_BUCKETS), 'Timeline bucket; by default hour for a range of at most 2 days, else day.')
  @ApiEnvelope(200, 'ConversationStats', { description: 'The statistics of the selected conversations.' })
  @ApiErrors('invalid_parameter', 'invalid_date_format')
  async stats(@Req() req: FastifyRequest, @Query() query: RawQuery) {
    const payload: ConversationStatsRequest = { account_id: callerOf(req).account.id, query: { ...query } };
    const stats = await this.services.send<ConversationStats>(ConversationsRpc.stats, payload, { requestId: requestIdOf(req) });
    return success(req, stats);
  }

  /** Declared before `:id`, which would otherwise take `stream` for a conversation id. */
  @Get('stream')
  @RequireScope('conversations:read')
  @ApiConversationStream()
  async stream(@Req() req: FastifyRequest, @Res() res: FastifyReply, @Query() query: RawQuery): Promise<void> {
    const payload: StreamFilterRequest = { query: { ...query } };
    const filter = await this.services.send<StreamFilter>(ConversationsRpc.streamFilter, payload, { requestId: requestIdOf(req) });
    const lastEventId = parseLastEventId(req.headers['last-event-id']);
    if (!lastEventId.ok) throw new ApiFailure(lastEventId.problem);
    await this.liveStreams.serve(req, res, filter, lastEventId.after);
  }

  @Get(':id')
  @RequireScope('conversations:read')
  @ApiRoute('Conversations', 'Get a conversation', 'Every field of the list item plus transcript, recording, analytics, outcomes and technical data.')
  @ApiIdParam('Conversation id.')
  @ApiEnvelope(200, 'ConversationDetail', { description: 'The conversation.' })
  @ApiErrors('not_found')
  async get(@Req() req: FastifyRequest, @Param('id') id: string) {
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
  async transcript(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply, @Param('id') id: string) {
    // The representation depends on Accept when ?format= is absent; caches must key on it.
    varyOn(res, 'Accept');
    const choice = transcriptFormat((req.query as Record<string, unknown>).format, headerOf(req, 'accept'));
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
    res.type(reply.content_type).header('Content-Disposition', attachmentHeader(reply.filename));
    return reply.body;
  }
}
