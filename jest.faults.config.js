/**
 * The fault suite (`npm run test:faults`): the built apps as real processes under kill -9, a NATS restart,
 * terminated PostgreSQL connections and a relay failover, checked Jepsen-style (test/faults/README.md).
 * Kept out of `npm test` (its own config); run in band — each file runs a whole deployment (3–4 node
 * processes and a nats-server) on a 2-core machine, and parallel files would only measure contention.
 */
import base from './jest.config.js';

const { displayName: _name, testMatch: _match, slowTestThreshold: _slow, ...common } = base.projects[0];

export default {
  ...common,
  displayName: 'faults',
  testMatch: ['<rootDir>/test/faults/**/*.fault-spec.ts'],
  // Generous: speed is measured elsewhere; a scenario that is slow but correct should pass.
  testTimeout: 240_000,
  maxWorkers: 1,
  // A failed scenario may leave a client retrying or a socket open; the processes themselves are killed in
  // afterAll. Exiting anyway keeps a failure from hanging CI.
  forceExit: true,
  globalSetup: '<rootDir>/test/faults/global-setup.mjs',
  globalTeardown: '<rootDir>/test/faults/global-teardown.mjs',
};
