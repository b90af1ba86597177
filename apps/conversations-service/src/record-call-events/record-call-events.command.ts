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
  /** The agent is not known yet: kept in parked_call_events, recorded once the agent is known (parked-events-replay.ts). Ack. */
  | { result: 'parked'; event_id: string; agent_id: string }
  /** A call its agent does not answer (answering-rule.ts: started once the agent was paused or deleted, or refused before). Nothing stored. Term. */
  | { result: 'not_answering'; event_id: string; agent_id: string; reason: string };
