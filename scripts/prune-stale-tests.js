/**
 * Deletes compiled tests in dist/ whose source is gone. `tsc` never removes what it emitted once,
 * and jest runs every *.test.js under dist/: a test moved or deleted in the source would otherwise
 * still run from its old place, against helpers that have moved on, and fail (or pass twice).
 * jest.config.js runs it, so every way of starting jest (npm test, `npx jest dist/...`) sees only
 * tests that still have a source; `node scripts/prune-stale-tests.js` runs it alone.
 */
const { existsSync, readdirSync, rmSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');

function pruneStaleTests(dir = dist) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) pruneStaleTests(file);
    else if (/\.test\.js$/.test(entry.name)) {
      const source = path.join(root, path.relative(dist, file)).replace(/\.js$/, '.ts');
      if (!existsSync(source)) {
        for (const out of [file, `${file}.map`, file.replace(/\.js$/, '.d.ts')]) rmSync(out, { force: true });
        console.error(`removed stale ${path.relative(root, file)}`);
      }
    }
  }
}

module.exports = { pruneStaleTests };
if (require.main === module) pruneStaleTests();
