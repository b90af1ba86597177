import { Command } from '@nestjs/cqrs';
import type { AgentIntegrationEvent } from '@voice/contracts';

/** What became of one agent event; the consumer settles its message by it. */
export type AgentEventOutcome =
  /** Kept (or older than what is known: it changes nothing). Ack. */
  | { result: 'remembered' }
  /** Not an agent event; retrying cannot help. Term. */
  | { result: 'malformed' };

/** Make the agents of these events known (newest version wins), in one transaction. */
export class RememberAgents extends Command<AgentEventOutcome[]> {
  constructor(readonly events: readonly AgentIntegrationEvent[]) {
    super();
  }
}
