import { CreateAgentsSchema1732250000000 } from './migrations/1732250000000-create-agents-schema.js';
import { CreateIntegrations1764000000000 } from './migrations/1764000000000-create-integrations.js';
import { PlatformSync1764100000000 } from './migrations/1764100000000-platform-sync.js';
import { PlatformAgentLookup1764200000000 } from './migrations/1764200000000-platform-agent-lookup.js';
import { PlatformReconcile1764300000000 } from './migrations/1764300000000-platform-reconcile.js';
import { AgentPrivacySettings1764400000000 } from './migrations/1764400000000-agent-privacy-settings.js';
import { AgentRetention1764410000000 } from './migrations/1764410000000-agent-retention.js';

/** The PostgreSQL schema agents-service owns; nothing else writes to it. */
export const AGENTS_SCHEMA = 'agents';

export const agentsMigrations = [
  CreateAgentsSchema1732250000000, CreateIntegrations1764000000000, PlatformSync1764100000000, PlatformAgentLookup1764200000000,
  PlatformReconcile1764300000000, AgentPrivacySettings1764400000000, AgentRetention1764410000000,
];
