import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { TRANSCRIPT_FORMATS, type TranscriptFormat, type TranscriptReply } from '@voice/contracts';
import { fail } from '@voice/service-kit';
import { readFor, SERVICE_CONTEXT, type ServiceContext } from '../config/service-context.js';
import { readConversation } from '../conversation/conversation.store.js';
import { toTranscriptView } from '../conversation/conversation.views.js';
import { GetTranscript } from './get-transcript.query.js';
import { toSrt, toText, toVtt } from './transcript.formats.js';

const DOCUMENTS = {
  text: { content_type: 'text/plain; charset=utf-8', extension: 'txt', render: toText },
  srt: { content_type: 'application/x-subrip', extension: 'srt', render: toSrt },
  vtt: { content_type: 'text/vtt', extension: 'vtt', render: toVtt },
} as const;

@QueryHandler(GetTranscript)
export class GetTranscriptHandler implements IQueryHandler<GetTranscript, TranscriptReply> {
  constructor(@Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext) {}

  async execute({ accountId, conversationId, format }: GetTranscript): Promise<TranscriptReply> {
    if (!(TRANSCRIPT_FORMATS as readonly string[]).includes(format)) {
      fail('invalid_parameter', `format must be one of: ${TRANSCRIPT_FORMATS.join(', ')}.`, { field: 'format', valid_values: [...TRANSCRIPT_FORMATS] });
    }
    const stored = await readFor(this.ctx, accountId, (db) => readConversation(db, accountId, conversationId));
    if (!stored) return fail('not_found', `No conversation with id ${conversationId}.`);
    if (stored.state.transcript.length === 0) {
      return fail('transcript_not_available', `Conversation ${conversationId} has no stored transcript.`);
    }
    const f = format as TranscriptFormat;
    if (f === 'json') return { format: 'json', transcript: toTranscriptView(stored.state) };
    const doc = DOCUMENTS[f];
    return {
      format: f,
      content_type: doc.content_type,
      // Conversation ids are [A-Za-z0-9._:-]; ':' is not allowed in file names on every system.
      filename: `conversation-${conversationId.replace(/:/g, '_')}.${doc.extension}`,
      body: doc.render(stored.state.transcript),
    };
  }
}
