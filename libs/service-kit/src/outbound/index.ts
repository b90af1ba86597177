export * from './address-policy.js';
export * from './outbound-url.js';
export * from './outbound-http-client.js';
