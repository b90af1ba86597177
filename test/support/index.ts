export * from './database.js';
export * from './http.js';
export * from './nats.js';
export * from './openapi.js';
export * from './platforms.js';
export * from './processes.js';
export * from './replica-cluster.js';
// startSystem lives in ./system.js (imported directly by e2e specs so unit/integration tests do not load every app)
