import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { harborTask } from '../../core/harbor-task';
import type { JsonObject } from '../../core/json';
import type { HarborTask, TerminalPort } from '../../core/ports/terminal';
import type { Outcome, Sample } from '../../core/sample';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier, Services } from '../../core/verifier';
import { terminal } from '../../verifiers/terminal';

export const TASKS = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'terminal', 'tasks');

/** A file of a workspace: its content, or a symlink, with an optional mode. */
export type Entry = string | { content: string; mode: number } | { symlink: string };

/** A real workspace folder archived with the system's GNU tar; `tarArgs` add members or options. */
export function workspaceTar(files: Record<string, Entry>, options: { gzip?: boolean; prepare?: (dir: string) => void; tarArgs?: string[] } = {}): string {
  const base = mkdtempSync(path.join(tmpdir(), 'verdict-ws-'));
  const dir = path.join(base, 'ws');
  mkdirSync(dir);
  for (const [rel, entry] of Object.entries(files)) {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    if (typeof entry === 'string') writeFileSync(file, entry);
    else if ('symlink' in entry) symlinkSync(entry.symlink, file);
    else {
      writeFileSync(file, entry.content);
      chmodSync(file, entry.mode);
    }
  }
  options.prepare?.(dir);
  const out = path.join(base, options.gzip ? 'ws.tar.gz' : 'ws.tar');
  execFileSync('tar', ['-C', dir, options.gzip ? '-czf' : '-cf', out, ...(options.tarArgs ?? []), '.'], { stdio: 'ignore' });
  return readFileSync(out).toString('base64');
}

export const never = new AbortController().signal;

export function scoreTerminal(label: JsonObject, metadata: JsonObject, services: Services): Promise<Outcome> {
  const sample: Sample = { id: 's', verifier: 'terminal', response: 'done', label, groupId: '', responseTokens: 0, metadata };
  return scoreAsync(terminal as AsyncVerifier, sample, { signal: never, services, compute: async () => null });
}

/** A task of these tests/ files and task.toml (parsed), read as a task folder would be. */
export function harborTaskOf(tests: Record<string, string>, port: Pick<TerminalPort, 'defaults'>, toml: Record<string, unknown> = {}, dockerfile: string | null = null): HarborTask {
  const built = harborTask({ id: 'contract', tests, toml, dockerfile, environmentDir: null }, port.defaults);
  if (!built.ok) throw new Error(built.error);
  return built.task;
}
