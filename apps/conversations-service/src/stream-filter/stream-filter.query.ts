import { Query } from '@nestjs/cqrs';
import type { RawQuery, StreamFilter } from '@voice/contracts';

/** The query string of GET /v1/conversations/stream, to check as the list checks its filters. */
export class CheckStreamFilter extends Query<StreamFilter> {
  constructor(readonly query: RawQuery) {
    super();
  }
}
