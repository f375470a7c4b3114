/** Tests are compiled by `tsc` first and run as plain JavaScript from dist/. */
module.exports = {
  roots: ['<rootDir>/dist/test'],
  testMatch: ['**/*.test.js'],
  testEnvironment: 'node',
  testTimeout: 60000,
  maxWorkers: 2,
};
