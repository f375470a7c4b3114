import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Json } from '../../core/json';
import type { AgentStatePort, TaskLookup } from '../../core/ports/agent-state';
import type { AgentStateConfigSection } from './config';
import { readAwmRelease, type AwmRelease } from './awm';
import { buildEnvironment } from './environment';

export { AwmReleaseError } from './awm';

export { agentStateConfigSection, type AgentStateConfigSection } from './config';

const taskFile = z.strictObject({
  entry: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a Python identifier').default('verify'),
  params: z.json().optional(),
});

const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** One task of a task folder, or `missing`. */
function folderTask(dir: string, id: string): TaskLookup {
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
  return { kind: 'found', task: { id, code: readFileSync(source, 'utf8'), entry, params, source: 'verdict' } };
}

/** One task of AgentWorldModel release files, with its environment's initial database (built once). */
function awmTask(release: AwmRelease, id: string, referenceTime: string): TaskLookup {
  const found = release.tasks.get(id);
  if (!found) return { kind: 'missing' };
  if ('broken' in found) return { kind: 'broken', error: found.broken };
  const schema = release.schemas.get(found.environment);
  const seed = release.seeds.get(found.environment);
  // AWM's own reset refuses an environment without both: there is no initial state to verify against.
  if (!schema) return { kind: 'broken', error: `environment ${found.environment} has no schema in the db file` };
  if (!seed) return { kind: 'broken', error: `environment ${found.environment} has no seed data in the sample file` };
  let built;
  try {
    built = buildEnvironment(schema, seed, referenceTime);
  } catch (error) {
    // Every statement's own failure is skipped as AWM skips it: what is left is data AWM's reset
    // cannot run either (it raises, and the episode never starts) — the dataset's defect.
    return { kind: 'broken', error: `environment ${found.environment} could not be built: ${(error as Error).message}` };
  }
  if (built.tables === 0) return { kind: 'broken', error: `environment ${found.environment}: none of its tables could be created` };
  return { kind: 'found', task: { id, code: found.code, entry: found.entry, params: null, source: 'awm', initialState: { sqlite: built.sqlite, referenceTime } } };
}

/**
 * Tasks are read once and kept: task folders and release files are dataset code, fixed for a run.
 * Release files are read here, at start-up (an unreadable line is an AwmReleaseError naming it).
 */
export function agentStateService(section: AgentStateConfigSection): AgentStatePort {
  const sources: Array<(id: string) => TaskLookup> = [];
  if (section.taskDir !== undefined) sources.push((id) => folderTask(section.taskDir!, id));
  for (const source of section.tasks) {
    if ('dir' in source) sources.push((id) => folderTask(source.dir, id));
    else {
      const release = readAwmRelease(source.awm);
      sources.push((id) => awmTask(release, id, section.referenceTime));
    }
  }
  const cache = new Map<string, TaskLookup>();
  return {
    limits: { maxStateBytes: section.maxStateMb << 20, cpuMs: section.cpuMs, memoryMb: section.memoryMb },
    async task(id) {
      if (sources.length === 0) return null;
      let found = cache.get(id);
      if (!found) {
        found = { kind: 'missing' };
        for (const source of sources) {
          found = source(id);
          if (found.kind !== 'missing') break;
        }
        cache.set(id, found);
      }
      return found;
    },
  };
}
