import { Command } from '@nestjs/cqrs';

/** Record a batch of untrusted call events (one transaction); the result says what to do with each message. */
export class RecordCallEvents extends Command<RecordOutcome[]> {
  constructor(readonly events: readonly unknown[]) {
    super();
  }
}

export type RecordOutcome =
  /** Stored and projected (or already stored in the account: a duplicate changes nothing). Ack. */
  | { result: 'recorded' | 'duplicate' }
  /** Not a valid call event; retrying cannot help. Term. */
  | { result: 'invalid'; reason: string }
  /** The agent is not known yet: kept in parked_call_events until its agent event arrives, then recorded. Ack. */
  | { result: 'parked'; event_id: string; agent_id: string }
  /** A call that started once its agent was paused or deleted: the agent does not answer it. Nothing stored. Term. */
  | { result: 'not_answering'; event_id: string; agent_id: string; reason: string };
