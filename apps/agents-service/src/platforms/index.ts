export * from './voice-platform.port.js';
export * from './platform-call-failed.js';
export * from './retry-delay.js';
export * from './platform-http.js';
export * from './platform-a.adapter.js';
export * from './platform-b.adapter.js';
export * from './voice-platform-adapters.js';
