import { Query } from '@nestjs/cqrs';
import type { CheckAnsweringReply, CheckAnsweringRequest } from '@voice/contracts';

/** Which events of a batch the HTTP ingest is about to publish would be refused (untrusted: it comes over the bus). */
export class CheckAnswering extends Query<CheckAnsweringReply> {
  constructor(readonly request: CheckAnsweringRequest) {
    super();
  }
}
