/** The file formats `verdict score` reads and writes: JSON Lines (plain, gzip, zstd) and Parquet. */
export const FORMATS = ['jsonl', 'jsonl.gz', 'jsonl.zst', 'parquet'] as const;
export type DatasetFormat = (typeof FORMATS)[number];

export type FormatChoice = { ok: true; format: DatasetFormat } | { ok: false; error: string };

const BY_EXTENSION: ReadonlyArray<[RegExp, DatasetFormat]> = [
  [/\.parquet$/i, 'parquet'],
  [/\.(jsonl|ndjson|json)\.gz$/i, 'jsonl.gz'],
  [/\.gz$/i, 'jsonl.gz'],
  [/\.(jsonl|ndjson|json)\.zst$/i, 'jsonl.zst'],
  [/\.zst$/i, 'jsonl.zst'],
];

export function isFormat(value: string): value is DatasetFormat {
  return (FORMATS as readonly string[]).includes(value);
}

/**
 * The format of a path: `--format` when given, else the extension; "-" (stdin/stdout) and unknown
 * extensions are JSONL, the format the CLI has always spoken.
 */
export function formatOf(path: string, flag: string | undefined, what: string): FormatChoice {
  if (flag !== undefined) {
    if (!isFormat(flag)) return { ok: false, error: `${what}: unknown format "${flag}" (known: ${FORMATS.join(', ')})` };
    return { ok: true, format: flag };
  }
  if (path === '-') return { ok: true, format: 'jsonl' };
  for (const [pattern, format] of BY_EXTENSION) if (pattern.test(path)) return { ok: true, format };
  return { ok: true, format: 'jsonl' };
}

const JSONL_EXTENSION = /\.(jsonl|ndjson|json)$/i;

/**
 * The format of a file about to be written: as `formatOf`, except that an extension no format has
 * (`results.csv`) is refused rather than filled with JSONL the name does not promise.
 */
export function outputFormatOf(path: string, flag: string | undefined, what: string, flagName: string | null): FormatChoice {
  if (flag === undefined && path !== '-' && !JSONL_EXTENSION.test(path) && !BY_EXTENSION.some(([pattern]) => pattern.test(path))) {
    // Only an output that has a format option is told of it (curate's record files take their extension's).
    const choose = flagName === null ? '' : `, or choose the format with ${flagName} (${FORMATS.join(', ')})`;
    return { ok: false, error: `${what} ${path}: unknown extension; name it .jsonl, .jsonl.gz, .jsonl.zst or .parquet${choose}` };
  }
  return formatOf(path, flag, what);
}
