import { Command } from '@nestjs/cqrs';
import type { RecordOutcome } from './call-recording.decider.js';

export type { RecordOutcome } from './call-recording.decider.js';

/** Record a batch of untrusted call events (one transaction); the result says what to do with each message. */
export class RecordCallEvents extends Command<RecordOutcome[]> {
  /** `publisherAccounts[i]`: the account the subject of `events[i]` named, if any. */
  constructor(readonly events: readonly unknown[], readonly publisherAccounts: ReadonlyArray<string | undefined> = []) {
    super();
  }
}
