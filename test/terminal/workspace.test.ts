import { execFileSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkspaceRun, WorkspaceSource } from '../../core/ports/terminal';
import { BwrapWorkspace, terminalConfigSection } from '../../services/terminal';
import { describeWorkspaceBackend } from './contract';
import { tarOf } from '../../core/tar';
import { harborTaskOf, never, workspaceTar } from './helpers';

describeWorkspaceBackend('bwrap', () => new BwrapWorkspace(terminalConfigSection.parse({ workers: 2, maxWorkspaceMb: 2 })));

/** A test.sh that prints what the workspace looks like to the test user and rewards 1. */
const LOOK: { tests: Record<string, string> } = {
  tests: {
    'test.sh': [
      'cd /app',
      'echo "user $(whoami) $(id -u) $(stat -c %U .)"',
      'for f in old.txt ro/inside.txt tool link copy replaced; do [ -e "$f" ] || [ -L "$f" ] && echo "$f $(stat -c \'%A %Y %U\' "$f")"; done',
      'echo "link -> $(readlink link)"; cat replaced; cat copy',
      'echo 1 > /logs/verifier/reward.txt',
    ].join('\n'),
  },
};

function prepare(dir: string): void {
  writeFileSync(path.join(dir, 'old.txt'), 'old\n');
  utimesSync(path.join(dir, 'old.txt'), 1_000_000_000, 1_000_000_000);
  mkdirSync(path.join(dir, 'ro'));
  writeFileSync(path.join(dir, 'ro', 'inside.txt'), 'in a read-only folder\n');
  chmodSync(path.join(dir, 'ro'), 0o555);
  writeFileSync(path.join(dir, 'tool'), '#!/bin/sh\n');
  chmodSync(path.join(dir, 'tool'), 0o6755);
  symlinkSync('old.txt', path.join(dir, 'link'));
  linkSync(path.join(dir, 'old.txt'), path.join(dir, 'copy'));
  writeFileSync(path.join(dir, 'replaced'), 'first\n');
}

describe('terminal bwrap backend: the workspace as the test user sees it', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'verdict-wsroot-'));
  const port = new BwrapWorkspace(terminalConfigSection.parse({ workers: 2, workspaceRoot: root }));
  const look = async (source: WorkspaceSource, task = LOOK): Promise<string> => {
    const run: WorkspaceRun = await port.run(harborTaskOf(task.tests, port), source, never);
    if (run.kind !== 'finished') throw new Error(JSON.stringify(run));
    expect(run).toMatchObject({ exitCode: 0, rewardTxt: '1\n' });
    return run.output;
  };

  const expectLook = (output: string) => {
    expect(output).toMatch(/^user user \d+ user$/m);
    expect(output).toMatch(/^old\.txt -rw-r--r-- 1000000000 user$/m);
    expect(output).toMatch(/^ro\/inside\.txt -rw-r--r-- \d+ user$/m);
    // setuid and setgid dropped, the rest of the mode kept.
    expect(output).toMatch(/^tool -rwxr-xr-x \d+ user$/m);
    expect(output).toMatch(/^link lrwxrwxrwx \d+ user$/m);
    expect(output).toMatch(/^link -> old\.txt$/m);
  };

  it('keeps an archive\'s modes (less setuid), mtimes, links inside and hard links as copies, all the test user\'s; a later member replaces an earlier one', async () => {
    const tar = workspaceTar({}, { prepare });
    // GNU tar appends a second "replaced" member after the first.
    const appended = (() => {
      const dir = mkdtempSync(path.join(tmpdir(), 'verdict-second-'));
      writeFileSync(path.join(dir, 'second'), 'second\n');
      const file = path.join(dir, 'ws.tar');
      writeFileSync(file, Buffer.from(tar, 'base64'));
      execFileSync('tar', ['-C', dir, '-rf', file, '--transform', 's,^second$,./replaced,', 'second']);
      return execFileSync('cat', [file]);
    })();
    const output = await look({ tar: appended, root: 'workdir' });
    expectLook(output);
    expect(output).toMatch(/^second\nold$/m);
  });

  it('takes a workspace folder, .tar or .tar.gz by path under terminal.workspaceRoot, and leaves a folder\'s fifos out', async () => {
    const folder = path.join(root, 'episode-1');
    mkdirSync(folder);
    prepare(folder);
    execFileSync('mkfifo', [path.join(folder, 'pipe')]);
    expectLook(await look({ path: 'episode-1', root: 'workdir' }, { ...LOOK, tests: { 'test.sh': `[ -e /app/pipe ] && exit 9\n${LOOK.tests['test.sh']}` } }));
    execFileSync('tar', ['-C', folder, '--exclude', 'pipe', '-cf', path.join(root, 'episode-1.tar'), '.']);
    execFileSync('tar', ['-C', folder, '--exclude', 'pipe', '-czf', path.join(root, 'episode-1.tar.gz'), '.']);
    expectLook(await look({ path: 'episode-1.tar', root: 'workdir' }));
    expectLook(await look({ path: 'episode-1.tar.gz', root: 'workdir' }));
  });

  it('ends 0 for a workspace folder nested deeper than the runner copies', async () => {
    const deep = path.join(root, 'deep');
    mkdirSync(path.join(deep, ...Array.from({ length: 300 }, () => 'd')), { recursive: true });
    expect(await port.run(harborTaskOf(LOOK.tests, port), { path: 'deep', root: 'workdir' }, never)).toMatchObject({ kind: 'too_large', what: 'folders nested deeper than 256' });
  });
});

describe('terminal bwrap backend: slots', () => {
  it('a call cancelled while it waits for a slot throws at once, and never starts', async () => {
    const port = new BwrapWorkspace(terminalConfigSection.parse({ workers: 1 }));
    const tar: WorkspaceSource = { tar: Buffer.from(workspaceTar({ 'answer.txt': '42' }), 'base64'), root: 'workdir' };
    const busy = port.run(harborTaskOf({ 'test.sh': 'sleep 1; echo 1 > /logs/verifier/reward.txt' }, port), tar, never);
    const controller = new AbortController();
    const queued = port.run(harborTaskOf({ 'test.sh': 'sleep 60' }, port), tar, controller.signal);
    controller.abort('shutdown');
    await expect(queued).rejects.toMatchObject({ name: 'WorkspaceError', reason: 'shutdown' });
    expect(await busy).toMatchObject({ kind: 'finished', rewardTxt: '1\n' });
  });
});

describe('terminal bwrap backend: a workdir of /', () => {
  it('keeps a workdir archive\'s etc/, usr/ and tmp file out of the sandbox\'s own folders (no ld.so.preload, no failed start)', async () => {
    const port = new BwrapWorkspace(terminalConfigSection.parse({ workers: 1 }));
    const archive = tarOf([{ name: 'etc/ld.so.preload', data: '/answer.so\n' }, { name: 'usr/bin/python3', data: '#!/bin/sh\n', mode: 0o755 }, { name: 'tmp', data: 'x' }, { name: 'answer.txt', data: '42' }]);
    const run = await port.run({ ...harborTaskOf({ 'test.sh': 'cat /answer.txt; [ -e /etc/ld.so.preload ] && echo preload; echo 1 > /logs/verifier/reward.txt' }, port), workdir: '/' }, { tar: archive, root: 'workdir' }, never);
    expect(run).toMatchObject({ kind: 'finished', output: '42', rewardTxt: '1\n' });
    expect((run as { skipped: string[] }).skipped).toEqual(expect.arrayContaining([expect.stringMatching(/^etc: 2 members where the sandbox's own folders are$/), expect.stringMatching(/^tmp: 1 member/)]));
  });
});
