import { CreateAgentsSchema1732250000000 } from './migrations/1732250000000-create-agents-schema.js';

export const agentsMigrations = [CreateAgentsSchema1732250000000];
