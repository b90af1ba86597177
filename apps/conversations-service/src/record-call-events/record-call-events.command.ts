import { Command } from '@nestjs/cqrs';

/** Record a batch of untrusted call events (one transaction); the result says what to do with each message. */
export class RecordCallEvents extends Command<RecordOutcome[]> {
  constructor(readonly events: readonly unknown[]) {
    super();
  }
}

export type RecordOutcome =
  /** Stored and projected (or already stored: a duplicate changes nothing). Ack. */
  | { result: 'recorded' | 'duplicate' }
  /** Not a valid call event; retrying cannot help. Term. */
  | { result: 'invalid'; reason: string }
  /** The conversation belongs to another account than this event's agent. Term. */
  | { result: 'rejected'; reason: string }
  /** The agent is not known yet (its events may still be on the way). Retry later. */
  | { result: 'unknown_agent'; agent_id: string };
