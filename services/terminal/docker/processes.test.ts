import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LIST } from './processes';

// `dying DIR` from the container's process listing, run by the host's sh on a /proc/PID lookalike:
// what it answers for each state a process can be read in, including one that vanishes between reads.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'verdict-dying-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A /proc/PID lookalike: `stat` with its flags field, `status` with these mask lines (null: no status file). */
function proc(flags: number, status: Record<string, string> | null, name = 'p'): string {
  const d = path.join(dir, name);
  mkdirSync(d);
  writeFileSync(path.join(d, 'stat'), `77 (sleep) T 1 77 77 0 -1 ${flags} 120 0 0 0 0 0 0 0 20 0 1 0\n`);
  const masks = { SigPnd: '0000000000000000', ShdPnd: '0000000000000000', SigBlk: '0000000000000000', SigIgn: '0000000000000000', SigCgt: '0000000000000000', ...status };
  if (status !== null) writeFileSync(path.join(d, 'status'), `Name:\tsleep\nState:\tT (stopped)\n${Object.entries(masks).map(([k, v]) => `${k}:\t${v}`).join('\n')}\n`);
  return d;
}

function dying(d: string): boolean {
  const run = spawnSync('/bin/sh', ['-c', `${LIST}\ndying "$1"`, 'sh', d], { encoding: 'utf8' });
  if (run.status !== 0 && run.status !== 1) throw new Error(`sh exited ${run.status}: ${run.stderr}`);
  return run.status === 0;
}

const TERM = (1 << 14).toString(16).padStart(16, '0');
const KILL = (1 << 8).toString(16).padStart(16, '0');

describe('docker backend: which listed processes are dying (cannot run their own code again)', () => {
  it('one with nothing pending is alive; SIGKILL pending, exiting, or a fatal TERM pending is dying', () => {
    expect(dying(proc(0x400000, {}, 'alive'))).toBe(false);
    expect(dying(proc(0x400000, { SigPnd: KILL }, 'kill'))).toBe(true);
    expect(dying(proc(0x400004, {}, 'exiting'))).toBe(true);
    expect(dying(proc(0x400000, { ShdPnd: TERM }, 'term'))).toBe(true);
  });

  it('a pending TERM it catches, blocks or ignores leaves it alive', () => {
    for (const mask of ['SigCgt', 'SigBlk', 'SigIgn']) expect(dying(proc(0x400000, { ShdPnd: TERM, [mask]: TERM }, mask))).toBe(false);
  });

  it('one gone between the reads (stat read, status not: exited and reaped meanwhile) is dying, not left over', () => {
    // Read as a process with nothing pending, a helper reaped at that moment was `leftover_processes`.
    expect(dying(proc(0x400000, null, 'reaped'))).toBe(true);
    expect(dying(path.join(dir, 'never-there'))).toBe(true);
  });
});
