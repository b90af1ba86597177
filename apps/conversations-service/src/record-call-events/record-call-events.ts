export { recordInTransaction } from './record-call-events.handler.js';
export type { IncomingEvent } from './call-recording.decider.js';
