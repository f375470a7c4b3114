import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { never, startSandbox } from './helpers';

/** The pool's slot uids are `uidBase` + a block of 16 per pool (pid and instance) + the slot's index. */
const UID_SPAN = 4096 * 4 * 16;

/** Pids of live (not zombie) processes whose command line holds a slot config of a uid in [base, base + UID_SPAN). */
function slotProcesses(base: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1];
      const uid = Number(/\{"uid":(\d+),/.exec(cmdline)?.[1] ?? NaN);
      if (state !== 'Z' && uid >= base && uid < base + UID_SPAN) found.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // died with one killed before it
    }
  }
}

/** Waits (bounded) until `check` holds; returns whether it did. Not a timing assert: only a bound. */
async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 25))) if (check()) return true;
  return check();
}

describe('sandbox: once close() resolves, no process of the sandbox is left (issue 13, item 11)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'verdict-close-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A uid range of its own per sandbox, so that the check sees only this test's slots.
  const uidBase = (n: number) => 3_000_000 + n * UID_SPAN;

  it('kills a slot that is still starting: the part of it not yet bound to its parent as well', async () => {
    // A bwrap that starts a moment late, in a child of the process Node spawned: killing only that
    // process (as close() did) leaves the start going on, and the sandbox it makes is an orphan —
    // the shape of the start-up race in which bwrap's pid 1 has not yet asked to die with its parent.
    const late = path.join(dir, 'late-bwrap');
    // (Only restarts are late: the first start is not, so that the sandbox starts at once.)
    const started = path.join(dir, 'started');
    writeFileSync(
      late,
      `#!/bin/sh\nexec 3<&0\n(if [ -e ${started} ]; then sleep 60; fi; touch ${started}; exec /usr/bin/bwrap "$@" <&3 3<&-) &\nwait\n`,
    );
    chmodSync(late, 0o755);
    const base = uidBase(0);
    const sandbox = await startSandbox({ workers: 1, bwrap: late, uidBase: base });
    expect(await sandbox.runStdio({ code: 'print(1)', tests: [{ stdin: '', stdout: '1' }] }, never)).toEqual({ passed: 1, total: 1 });
    const first = slotProcesses(base);
    killAll(first);
    // The pool restarts the slot at once; close() meets it while its bwrap has not started yet.
    expect(await eventually(() => slotProcesses(base).some((pid) => !first.includes(pid)), 3_000)).toBe(true);
    await sandbox.close();
    const left = slotProcesses(base);
    killAll(left);
    expect(left).toEqual([]);
  });

  it('kills slots that are still starting when it runs', async () => {
    const base = uidBase(1);
    const sandbox = await startSandbox({ workers: 2, uidBase: base });
    // Kill every slot from outside: the pool restarts them at once, and close() meets them starting.
    const first = slotProcesses(base);
    killAll(first);
    expect(await eventually(() => slotProcesses(base).some((pid) => !first.includes(pid)), 3_000)).toBe(true);
    await sandbox.close();
    expect(slotProcesses(base)).toEqual([]);
  });
});
