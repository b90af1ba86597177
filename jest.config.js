/**
 * Three suites: unit (pure, no I/O), integration (one service against real
 * PostgreSQL and NATS), e2e (HTTP through gateway → NATS → services → Postgres).
 * Each integration/e2e test file gets its own fresh database and NATS namespace.
 */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: {
    '^@voice/contracts$': '<rootDir>/libs/contracts/src/index.ts',
    '^@voice/service-kit$': '<rootDir>/libs/service-kit/src/index.ts',
    '^@voice/pii$': '<rootDir>/libs/pii/src/index.ts',
    '^@voice/voice-platforms$': '<rootDir>/libs/voice-platforms/src/index.ts',
    '^@voice/voice-platforms/field-tables$': '<rootDir>/libs/voice-platforms/src/field-tables.ts',
    '^@voice/testing$': '<rootDir>/test/support/index.ts',
    '^@voice/call-generator$': '<rootDir>/tools/call-generator/src/index.ts',
    '^@voice/platform-simulators$': '<rootDir>/tools/platform-simulators/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  rootDir: '.',
};

export default {
  // Real servers on a 2-core machine: setup and teardown (a fresh database, JetStream streams) can take
  // longer than jest's 5 s default when suites run in parallel, without anything being wrong. A global
  // option (jest ignores it inside `projects`); it applies to hooks too.
  testTimeout: 30_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,test,tools}/**/*.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/{apps,libs}/**/*.int-spec.ts'], slowTestThreshold: 15 },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'], slowTestThreshold: 20 },
  ],
};
