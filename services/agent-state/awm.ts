import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { AwmSchema, AwmSeed } from './environment';

/**
 * AgentWorldModel's release files (the AgentWorldModel-1K dataset, or `awm gen` output), read as its
 * own code reads them:
 * - the verifier file (`gen_verifier.pure_code.jsonl`): one line per environment and task index,
 *   `{"scenario", "task_idx", "task", "verification": {"code", …}}`;
 * - the schema file (`gen_db.jsonl`): one line per environment, `{"scenario", "db_schema": {"tables":
 *   [{"name", "ddl", "indexes"}]}, …}`;
 * - the seed file (`gen_sample.jsonl`): one line per environment, `{"scenario", "sample_data":
 *   {"tables": [{"table_name", "insert_statements"}]}, …}`.
 * Environments are matched by AWM's normalized scenario name (lower case, runs of anything but
 * `[a-z0-9_]` as one `_`, trimmed of `_`), and the first line of a name wins, as in its lookups.
 */
export interface AwmTask {
  /** `<environment>.<task index>`. */
  id: string;
  environment: string;
  code: string;
  /** The function AWM's runner calls: the first `def verify_…(` line, else verify_task_completion. */
  entry: string;
}

export interface AwmRelease {
  tasks: Map<string, AwmTask | { broken: string }>;
  schemas: Map<string, AwmSchema>;
  seeds: Map<string, AwmSeed>;
}

/** A release file that cannot be read as AWM writes it: every problem names the file and line. */
export class AwmReleaseError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'AwmReleaseError';
  }
}

export function normalizeScenario(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
}

// Any string: AWM's cursor.execute runs an empty one as nothing, and refuses a bad one at build time.
const sql = z.string();
const verifierLine = z.looseObject({
  scenario: z.string().min(1),
  task_idx: z.number().int().min(0),
  verification: z.looseObject({ code: z.string().nullable().optional() }),
});
const schemaLine = z.looseObject({
  scenario: z.string().min(1),
  db_schema: z.looseObject({ tables: z.array(z.looseObject({ name: z.string().optional(), ddl: sql.optional(), indexes: z.array(sql).nullable().optional(), examples: z.array(sql).nullable().optional() })) }),
});
const seedLine = z.looseObject({
  scenario: z.string().min(1),
  sample_data: z.looseObject({ tables: z.array(z.looseObject({ table_name: z.string().optional(), insert_statements: z.array(sql).optional() })) }),
});

function readLines<T>(file: string, shape: z.ZodType<T>, problems: string[]): T[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(`${file}: cannot be read (${(error as Error).message})`);
    return [];
  }
  const out: T[] = [];
  text.split('\n').forEach((line, k) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problems.push(`${file}:${k + 1}: not valid JSON (${(error as Error).message})`);
      return;
    }
    const parsed = shape.safeParse(value);
    if (!parsed.success) problems.push(`${file}:${k + 1}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
    else out.push(parsed.data);
  });
  return out;
}

/** The function name AWM's runner picks from a verification's code. */
export function awmEntry(code: string): string {
  for (const line of code.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('def verify_') && trimmed.includes('(')) return trimmed.split('(')[0]!.replaceAll('def ', '').trim();
  }
  return 'verify_task_completion';
}

export function readAwmRelease(files: { verifiers: string; db: string; sample: string }): AwmRelease {
  const problems: string[] = [];
  const verifiers = readLines(files.verifiers, verifierLine, problems);
  const schemas = readLines(files.db, schemaLine, problems);
  const seeds = readLines(files.sample, seedLine, problems);
  if (problems.length > 0) throw new AwmReleaseError(problems.slice(0, 20));
  const release: AwmRelease = { tasks: new Map(), schemas: new Map(), seeds: new Map() };
  for (const line of schemas) {
    const name = normalizeScenario(line.scenario);
    if (!release.schemas.has(name)) release.schemas.set(name, line.db_schema as AwmSchema);
  }
  for (const line of seeds) {
    const name = normalizeScenario(line.scenario);
    if (!release.seeds.has(name)) release.seeds.set(name, line.sample_data as AwmSeed);
  }
  for (const line of verifiers) {
    const environment = normalizeScenario(line.scenario);
    const id = `${environment}.${line.task_idx}`;
    if (release.tasks.has(id)) continue;
    const code = line.verification.code;
    // AWM's runner refuses code shorter than 10 characters as "no valid verifier code".
    if (typeof code !== 'string' || code.trim().length < 10) release.tasks.set(id, { broken: `${files.verifiers}: no verification code for ${id}` });
    else release.tasks.set(id, { id, environment, code, entry: awmEntry(code) });
  }
  return release;
}
