import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { STREAM_FILTER_PARAMETERS, type StreamFilter } from '@voice/contracts';
import { ServiceFailure } from '@voice/service-kit';
import { parseFilterQuery } from '../list-conversations/list-conversations.params.js';
import { CheckStreamFilter } from './stream-filter.query.js';

/**
 * The live stream's filters, parsed by the list's own parser restricted to the parameters the stream takes:
 * the same values are accepted and the same problems answered (code, field, valid_values); any other
 * parameter is unknown there.
 */
@QueryHandler(CheckStreamFilter)
export class CheckStreamFilterHandler implements IQueryHandler<CheckStreamFilter, StreamFilter> {
  async execute({ query }: CheckStreamFilter): Promise<StreamFilter> {
    const parsed = parseFilterQuery(query, STREAM_FILTER_PARAMETERS);
    if (!parsed.ok) throw new ServiceFailure(parsed.problem);
    const { agent_id, status } = parsed.filter;
    return { ...(agent_id !== undefined ? { agent_id } : {}), ...(status !== undefined ? { status } : {}) };
  }
}
