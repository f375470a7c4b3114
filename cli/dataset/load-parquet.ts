/**
 * The Parquet module, loaded on first use: hyparquet is an ES module, which CommonJS can require only
 * on Node ≥ 20.19 (require(esm)). Loading it lazily keeps JSONL scoring, `serve` and the tests that
 * import the CLI's modules independent of it, and turns an older Node into one clear error.
 */
type ParquetModule = typeof import('./parquet');

let loaded: ParquetModule | null = null;

export function loadParquet(): ParquetModule {
  if (loaded === null) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      loaded = require('./parquet') as ParquetModule;
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_REQUIRE_ESM') {
        throw new Error(`Parquet needs Node.js >= 20.19 (this is ${process.version}): its reader and writer are ES modules`);
      }
      throw error;
    }
  }
  return loaded;
}
