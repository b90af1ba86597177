export * from './message-streams.js';
export { transientRetryDelay } from './batch-runner.js';
export * from './jetstream-streams.js';
export * from './in-process-streams.js';
export * from './subject-matching.js';
