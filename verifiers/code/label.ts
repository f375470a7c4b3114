import { z } from 'zod';

const limits = {
  time_limit_ms: z.number().int().min(10).optional().describe('CPU time per test (default from the sandbox config)'),
  memory_limit_mb: z.number().int().min(16).optional().describe('Memory per run (default from the sandbox config)'),
  problem_id: z.string().min(1).optional().describe('Seed of the test subsample; default: a hash of the tests'),
};

export const assertLabel = z.strictObject({
  mode: z.literal('assert'),
  tests: z.array(z.string().min(1)).min(1).describe('Assert statements exercising the candidate\'s function'),
  fn_name: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a Python identifier')
    .optional()
    .describe('The entry point; always taken from the candidate, even where it shadows a builtin'),
  setup: z.string().optional().describe('Trusted helper code the tests may use, run outside the candidate'),
  ...limits,
});

export const stdioLabel = z.strictObject({
  mode: z.literal('stdio'),
  tests: z.array(z.strictObject({ stdin: z.string(), stdout: z.string() })).min(1),
  ...limits,
});

export const codeLabel = z.discriminatedUnion('mode', [assertLabel, stdioLabel]);
export type CodeLabel = z.output<typeof codeLabel>;
