// Two tiers of one suite (README, "Tests"; docs/performance.md, "Test suites"):
// - `npm test`: the fast tier, every suite but the slow ones of test/tiers.js: under a minute on two cores;
// - `npm run test:all`: typecheck, lint and both tiers: what CI runs (.ci/run).
// Nothing is skipped: the slow tier runs in CI on every change of the tool.

const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { SLOW } = require('./test/tiers');

// A slow suite renamed or removed would otherwise leave the list silently, and the suite in the fast tier.
for (const path of Object.keys(SLOW)) {
  if (!existsSync(join(__dirname, path))) throw new Error(`test/tiers.js names ${path}, which does not exist: correct the list`);
}

const shared = {
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/setup-date.js'],
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': '<rootDir>/test/esbuild-transform.js' },
  snapshotFormat: { escapeString: false, printBasicPrototype: false },
};
const slowPatterns = Object.keys(SLOW).map((path) => `<rootDir>/${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: '100%',
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  projects: [
    { ...shared, displayName: 'fast', testPathIgnorePatterns: ['/node_modules/', ...slowPatterns] },
    { ...shared, displayName: 'slow', testMatch: Object.keys(SLOW).map((path) => `<rootDir>/${path}`) },
  ],
};
