export { findAgents } from './known-agents.store.js';
