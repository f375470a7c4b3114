import { z } from 'zod';

/** `jsIsolate:` in the config file. The service needs nothing outside the process, so it always runs. */
export const jsIsolateConfigSection = z.strictObject({
  memoryMb: z.number().int().min(8).max(1024).default(32).describe('Heap limit of each isolate (MB)'),
  timeoutMs: z.number().int().min(1).max(60_000).default(1_000).describe('CPU milliseconds one rubric call may use (wall time is a backstop at ten times this)'),
  maxConcurrency: z.number().int().min(1).max(64).default(4).describe('Isolates alive at once'),
});

export type JsIsolateConfigSection = z.output<typeof jsIsolateConfigSection>;
