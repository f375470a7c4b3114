import { z } from 'zod';

const awmFiles = z.strictObject({
  verifiers: z.string().min(1).describe('The code-mode verifier file, gen_verifier.pure_code.jsonl'),
  db: z.string().min(1).describe('The environments\' schema file, gen_db.jsonl'),
  sample: z.string().min(1).describe('The environments\' seed data file, gen_sample.jsonl'),
});

/** `agentState:` in the config file. */
export const agentStateConfigSection = z.strictObject({
  taskDir: z.string().min(1).optional().describe('Folder of tasks: <taskDir>/<id>/verify.py, and optionally <taskDir>/<id>/task.json {"entry", "params"}'),
  tasks: z
    .array(z.union([z.strictObject({ dir: z.string().min(1).describe('A task folder, as taskDir') }), z.strictObject({ awm: awmFiles.describe('AgentWorldModel release files; task ids <environment>.<index>') })]))
    .default([])
    .describe('Task sources after taskDir, looked up in order: task folders and AgentWorldModel release files'),
  referenceTime: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'expected YYYY-MM-DD HH:MM:SS (UTC)')
    .default('2026-01-01 00:00:00')
    .describe('"now" (UTC) while an AgentWorldModel environment\'s initial database is built: datetime(\'now\', …) and CURRENT_TIMESTAMP in its schema and seed data'),
  maxStateMb: z.number().int().min(1).default(16).describe('Largest final or initial state (SQLite file or SQL dump); at most sandbox.limits.fileMb'),
  cpuMs: z.number().int().min(10).default(10_000).describe('CPU time of one verification (loading the states included)'),
  memoryMb: z.number().int().min(16).default(512).describe('Memory a verification may add above the warm interpreter'),
});
export type AgentStateConfigSection = z.output<typeof agentStateConfigSection>;
