/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.[tj]sx?$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, jsx: 'react-jsx', jsxImportSource: 'hono/jsx' } }] },
  // dinero.js v2 ships ES modules only; Jest (CommonJS here) needs it transpiled.
  transformIgnorePatterns: ['/node_modules/(?!dinero\\.js/)'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // One Temporal dev server and one workflow bundle for the whole run (see test/support/global-setup.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // A personal-data key in every test file's process (src/db/personal-data.ts).
  setupFiles: ['<rootDir>/test/support/personal-data-key.ts'],
  testTimeout: 120_000,
  // Two test files at a time: most of a file's time is spent waiting (on Temporal, timers, a
  // supplier's delay), so two on two cores finish in about two thirds of the time one does.
  maxWorkers: 2,
};
