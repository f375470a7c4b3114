import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { HarborTask, HarborTaskLookup } from '../../core/ports/workspace';
import type { TerminalConfigSection } from './config';

const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_TEST_FILES = 1000;
const MAX_TEST_BYTES = 64 << 20;

function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** A Harbor task folder: its tests/ files and the task.toml fields the runner uses. */
export function loadHarborTask(dir: string, id: string, defaults: TerminalConfigSection['defaults']): HarborTaskLookup {
  if (!TASK_ID.test(id) || id.includes('..')) return { kind: 'missing' };
  const folder = path.join(dir, id);
  const testsDir = path.join(folder, 'tests');
  if (!existsSync(folder)) return { kind: 'missing' };
  if (!existsSync(path.join(testsDir, 'test.sh'))) return { kind: 'broken', error: 'no tests/test.sh' };
  const tests: Record<string, string> = {};
  let count = 0;
  let bytes = 0;
  const walk = (sub: string) => {
    for (const entry of readdirSync(path.join(testsDir, sub), { withFileTypes: true })) {
      const rel = sub === '' ? entry.name : `${sub}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile()) {
        count++;
        bytes += statSync(path.join(testsDir, rel)).size;
        if (count > MAX_TEST_FILES || bytes > MAX_TEST_BYTES) throw new Error(`tests/ holds more than ${MAX_TEST_FILES} files or ${MAX_TEST_BYTES} bytes`);
        tests[rel] = readFileSync(path.join(testsDir, rel), 'utf8');
      }
    }
  };
  let toml: Record<string, unknown> = {};
  try {
    walk('');
    const tomlPath = path.join(folder, 'task.toml');
    if (existsSync(tomlPath)) toml = parseToml(readFileSync(tomlPath, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    return { kind: 'broken', error: (error as Error).message.split('\n')[0]! };
  }
  const section = (name: string) => (typeof toml[name] === 'object' && toml[name] !== null ? (toml[name] as Record<string, unknown>) : {});
  const task: HarborTask = {
    id,
    tests,
    timeoutSec: number(section('verifier').timeout_sec) ?? defaults.timeoutSec,
    cpus: number(section('environment').cpus) ?? defaults.cpus,
    memoryMb: number(section('environment').memory_mb) ?? defaults.memoryMb,
    storageMb: number(section('environment').storage_mb) ?? defaults.storageMb,
  };
  return { kind: 'found', task };
}
