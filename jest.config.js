/**
 * Tests are compiled by `tsc` with the code they test and run as plain JavaScript from dist/: a unit
 * test sits beside its module (verifiers/math/compare.test.ts → dist/verifiers/math/compare.test.js)
 * and cross-layer suites (spine, conformance, deploy, browser) live under test/. One compiler and no
 * transform at test time: where a test lives adds no step to CI.
 */
require('./scripts/prune-stale-tests').pruneStaleTests();

module.exports = {
  roots: ['<rootDir>/dist'],
  testMatch: ['**/*.test.js'],
  // The playground's browser bundle is compiled into dist/web/client by its own tsconfig; no tests there.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/dist/web/client/'],
  testEnvironment: 'node',
  testTimeout: 60000,
  maxWorkers: 2,
};
