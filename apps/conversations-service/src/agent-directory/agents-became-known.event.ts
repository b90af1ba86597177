/** Published in-process once a transaction that made these agents known (or newer) has committed. */
export class AgentsBecameKnown {
  constructor(readonly agentIds: readonly string[]) {}
}
