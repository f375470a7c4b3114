// Apart from services/log.ts so that the CLI can offer `--log-level` without loading pino, which
// only `verdict serve` starts.

/** The levels `--log-level` accepts, most severe first; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
