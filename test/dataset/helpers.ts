import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, VERDICT_BIN, type Finished } from '../fixtures/cli';

export { runCli, type Finished };

export type Row = Record<string, unknown>;

export function jsonl(rows: readonly unknown[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

export function readJsonl(file: string): Row[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
}

/** Reads or writes Parquet in a child process with hyparquet / hyparquet-writer (test/fixtures/parquet-tool.ts). */
export async function parquetTool(args: string[], stdin = ''): Promise<string> {
  const tool = path.join(__dirname, '..', 'fixtures', 'parquet-tool.js');
  const out = await new Promise<Finished>((resolve, reject) => {
    const child = spawn(process.execPath, [tool, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
  if (out.code !== 0) throw new Error(`parquet-tool ${args.join(' ')}: ${out.stderr}`);
  return out.stdout;
}

export async function readParquet(file: string): Promise<{ schema: string[]; rows: Row[] }> {
  return JSON.parse(await parquetTool(['read', file])) as { schema: string[]; rows: Row[] };
}

/** qa rows: the i-th answers option "ABCD"[i % 4] against the choice C, so a quarter are correct. */
export function qaRows(n: number, extra: (i: number) => Row = () => ({})): Row[] {
  return Array.from({ length: n }, (_, i) => ({ id: `q${i}`, verifier: 'qa', response: `\\boxed{${'ABCD'[i % 4]}}`, label: { choice: 'C' }, ...extra(i) }));
}

/** Starts `verdict score`; the caller waits for it or kills it. */
export function startScore(args: string[]): { child: ChildProcess; done: Promise<Finished> } {
  const child = spawn(process.execPath, [VERDICT_BIN, 'score', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Finished>((resolve) => child.on('close', (code, signal) => resolve({ code: code ?? (signal ? -1 : null), stdout, stderr })));
  return { child, done };
}

/** The last input line a run's checkpoint says is written (0 before the first). */
export function checkpointLine(output: string): number {
  const file = `${output}.resume.json`;
  if (!existsSync(file)) return 0;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { line: number }).line;
  } catch {
    return 0; // mid-rename; the next poll reads it
  }
}

export async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
