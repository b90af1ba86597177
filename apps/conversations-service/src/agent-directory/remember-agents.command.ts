import { Command } from '@nestjs/cqrs';
import type { AgentIntegrationEvent } from '@voice/contracts';

/** What became of one agent event; the consumer settles its message by it. */
export type AgentEventOutcome =
  /** Kept (or older than what is known: it changes nothing). Ack. */
  | { result: 'remembered' }
  /** A notice of agents-service's dealings with the platforms (a failed sync, a refused key): it changes no agent. Ack. */
  | { result: 'not_a_change' }
  /** Not an agent event; retrying cannot help. Term. */
  | { result: 'malformed' };

/** Make the agents of these events known (newest version wins), in one transaction. */
export class RememberAgents extends Command<AgentEventOutcome[]> {
  constructor(readonly events: readonly AgentIntegrationEvent[]) {
    super();
  }
}
