import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Json } from '../../core/json';
import type { AgentStatePort, TaskLookup } from '../../core/ports/agent-state';

/** `agentState:` in the config file. */
export const agentStateConfigSection = z.strictObject({
  taskDir: z.string().min(1).optional().describe('Folder of tasks: <taskDir>/<id>/verify.py, and optionally <taskDir>/<id>/task.json {"entry", "params"}'),
  maxStateMb: z.number().int().min(1).default(16).describe('Largest final or initial state (SQLite file or SQL dump); at most sandbox.limits.fileMb'),
  cpuMs: z.number().int().min(10).default(10_000).describe('CPU time of one verification (loading the states included)'),
  memoryMb: z.number().int().min(16).default(512).describe('Memory a verification may add above the warm interpreter'),
});
export type AgentStateConfigSection = z.output<typeof agentStateConfigSection>;

const taskFile = z.strictObject({
  entry: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a Python identifier').default('verify'),
  params: z.json().optional(),
});

const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Tasks are read once and kept: a task directory is dataset code, fixed for a run. */
export function agentStateService(section: AgentStateConfigSection): AgentStatePort {
  const cache = new Map<string, TaskLookup>();
  const load = (dir: string, id: string): TaskLookup => {
    // An id is one path component: a label cannot reach outside the task directory.
    if (!TASK_ID.test(id) || id.includes('..')) return { kind: 'missing' };
    const folder = join(dir, id);
    const source = join(folder, 'verify.py');
    if (!existsSync(source) || !statSync(source).isFile()) return { kind: 'missing' };
    let entry = 'verify';
    let params: Json = null;
    const meta = join(folder, 'task.json');
    if (existsSync(meta)) {
      let parsed;
      try {
        parsed = taskFile.safeParse(JSON.parse(readFileSync(meta, 'utf8')));
      } catch (error) {
        return { kind: 'broken', error: `task.json: not valid JSON (${(error as Error).message})` };
      }
      if (!parsed.success) return { kind: 'broken', error: `task.json: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}` };
      entry = parsed.data.entry;
      params = (parsed.data.params ?? null) as Json;
    }
    return { kind: 'found', task: { id, code: readFileSync(source, 'utf8'), entry, params } };
  };
  return {
    limits: { maxStateBytes: section.maxStateMb << 20, cpuMs: section.cpuMs, memoryMb: section.memoryMb },
    async task(id) {
      if (section.taskDir === undefined) return null;
      let found = cache.get(id);
      if (!found) cache.set(id, (found = load(section.taskDir, id)));
      return found;
    },
  };
}
