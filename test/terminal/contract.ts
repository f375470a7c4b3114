import type { HarborTask, TerminalPort, WorkspaceRun, WorkspaceSource } from '../../core/ports/terminal';
import { WorkspaceError } from '../../core/ports/terminal';
import { tarOf } from '../../core/tar';
import { harborTaskOf, never, workspaceTar } from './helpers';

/**
 * The backend contract of core/ports/terminal.ts (verifiers/terminal/README.md, "The backend
 * contract"), as a suite any TerminalPort runs: the local bwrap backend, the docker one (fresh
 * containers), a remote one later. It calls the port directly, not through the verifier. `make`
 * gives a backend whose largest workspace is 2 MiB. `options` names what a backend says it cannot
 * do: `diskFull: false`, no disk cap (podman's overlay without quotas); `rootTests: true`, test.sh
 * runs as root (Harbor's default user), so /tests is within its reach.
 */
export function describeWorkspaceBackend(name: string, make: () => TerminalPort, options: { diskFull?: boolean; rootTests?: boolean } = {}): void {
  describe(`workspace backend contract: ${name}`, () => {
    const port = make();
    const task = (script: string, limits: Partial<HarborTask> = {}): HarborTask => ({ ...harborTaskOf({ 'test.sh': script }, port), ...limits });
    const tar = (files: Record<string, string> = { 'answer.txt': '42' }): WorkspaceSource => ({ tar: Buffer.from(workspaceTar(files), 'base64'), root: 'workdir' });
    const finished = (run: WorkspaceRun) => {
      if (run.kind !== 'finished') throw new Error(`expected a finished run, got ${JSON.stringify(run)}`);
      return run;
    };

    it('runs test.sh in the workspace and gives back its exit code, both reward files and the tail of its output', async () => {
      const run = finished(await port.run(task('cat answer.txt; echo 0.5 > /logs/verifier/reward.txt; echo \'{"reward": 1}\' > /logs/verifier/reward.json; exit 3'), tar(), never));
      expect(run).toMatchObject({ exitCode: 3, rewardTxt: '0.5\n', rewardJson: '{"reward": 1}\n', skipped: [] });
      expect(run.output).toBe('42');
      const quiet = finished(await port.run(task('exit 0'), tar(), never));
      expect(quiet).toMatchObject({ exitCode: 0, rewardTxt: null, rewardJson: null });
    });

    it('starts test.sh with /logs/verifier holding no reward file, whatever the workspace holds', async () => {
      const planted = tar({ 'answer.txt': '41', 'logs/verifier/reward.txt': '1', 'reward.json': '{"reward": 1}', 'reward.txt': '1' });
      const run = finished(await port.run(task('n=$(ls -A /logs/verifier | grep -c reward); echo $n > /logs/verifier/reward.txt'), planted, never));
      expect(run.rewardTxt).toBe('0\n');
    });

    it('puts the task\'s tests/ (subfolders too) at /tests, where the test cannot change them', async () => {
      const tests = { 'test.sh': 'cat /tests/data/expected.txt; { echo x > /tests/data/expected.txt; } 2>/dev/null && echo wrote; echo 1 > /logs/verifier/reward.txt', 'data/expected.txt': 'expected\n' };
      const run = finished(await port.run({ ...task(''), tests }, tar(), never));
      // Tests that run as root (Harbor's default user in a container) can write anywhere, /tests too:
      // verifiers/terminal/README.md says how a test.sh is written so that this cannot matter.
      expect(run.output).toBe(options.rootTests ? 'expected\nwrote\n' : 'expected\n');
    });

    it('gets every process of the test gone before the reward is read: one left over is the workspace\'s fault', async () => {
      const run = await port.run(task('(sleep 5; echo 1 > /logs/verifier/reward.txt) & echo 0 > /logs/verifier/reward.txt'), tar(), never);
      expect(run).toMatchObject({ kind: 'workspace_fault', fault: 'leftover_processes' });
    });

    it('does not count a helper test.sh killed without waiting (its signal pending, here while it is stopped) as left over; a helper left alive is', async () => {
      const killed = finished(await port.run(task('sleep 30 & h=$!; until [ "$(cat /proc/$h/comm)" = sleep ]; do :; done; kill -STOP $h; kill -TERM $h; echo 1 > /logs/verifier/reward.txt'), tar(), never));
      expect(killed).toMatchObject({ kind: 'finished', rewardTxt: '1\n' });
      expect(await port.run(task('sleep 30 & h=$!; kill -STOP $h; echo 1 > /logs/verifier/reward.txt'), tar(), never)).toMatchObject({ kind: 'workspace_fault', fault: 'leftover_processes' });
      expect(await port.run(task('(trap "" TERM; while :; do sleep 1; done) & h=$!; sleep 0.5; kill -TERM $h; echo 1 > /logs/verifier/reward.txt'), tar(), never)).toMatchObject({ kind: 'workspace_fault', fault: 'leftover_processes' });
    });

    it('reports test.sh killed by a signal, and a full disk without a reward, as the workspace\'s fault', async () => {
      expect(await port.run(task('echo 1 > /logs/verifier/reward.txt; kill -9 $$'), tar(), never)).toMatchObject({ kind: 'workspace_fault', fault: 'runner_killed' });
      // A backend whose engine cannot cap a container's disk (podman's overlay without quotas) says so.
      if (options.diskFull !== false) {
        expect(await port.run(task('cat /dev/zero > fill.bin 2>/dev/null; exit 1', { storageMb: 16 }), tar(), never)).toMatchObject({ kind: 'workspace_fault', fault: 'disk_full' });
        // The reward folder itself filled first: test.sh cannot write its reward, and that is the workspace's doing.
        expect(await port.run(task('cat /dev/zero > /logs/verifier/fill.bin 2>/dev/null; echo 0 > /logs/verifier/reward.txt'), tar(), never)).toMatchObject({ kind: 'workspace_fault', fault: 'disk_full' });
      }
    });

    it('refuses a workspace past its limits as too large, before running anything', async () => {
      const big: WorkspaceSource = { tar: Buffer.from(workspaceTar({ 'a.bin': 'x'.repeat(3 << 20) }), 'base64'), root: 'workdir' };
      expect(await port.run({ ...task('echo 1 > /logs/verifier/reward.txt'), storageMb: 1024 }, big, never)).toMatchObject({ kind: 'too_large' });
    });

    it('never lets a symlink chain that resolves out of the workspace only physically reach the hidden tests', async () => {
      // Lexically a/b/c/L/../../../../tests/expected.txt is tests/expected.txt inside the workspace;
      // physically L is x (one level down), so four levels up is / and the file /tests/expected.txt.
      const chain = { tar: Buffer.from(workspaceTar({ 'x/keep': '', 'a/b/c/L': { symlink: '../../../x' }, answer: { symlink: 'a/b/c/L/../../../../tests/expected.txt' } }), 'base64'), root: 'workdir' as const };
      const tests = { 'test.sh': 'if [ "$(cat answer 2>/dev/null)" = secret ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt', 'expected.txt': 'secret' };
      const run = finished(await port.run({ ...task(''), tests }, chain, never));
      expect(run.rewardTxt).toBe('0\n');
      expect(run.skipped).toEqual([expect.stringMatching(/^answer: symlink out of the workspace/)]);
    });

    it('reports a folder (or anything but a file) at a reward path, not an absent file', async () => {
      const run = finished(await port.run(task('mkdir /logs/verifier/reward.txt; echo 0 > /logs/verifier/reward.txt; exit 0'), tar(), never));
      expect(run).toMatchObject({ rewardTxt: null, rewardNotFile: ['reward.txt'] });
      // A hard link: the same file under another name, whose text someone else may decide.
      const linked = finished(await port.run(task('echo 1 > /logs/verifier/reward.json; ln /logs/verifier/reward.json /logs/verifier/other'), tar(), never));
      expect(linked).toMatchObject({ rewardJson: null, rewardNotFile: ['reward.json'] });
      // Made read-only after a forged 1, so that test.sh's own `echo 0 >` fails.
      const readOnly = finished(await port.run(task('echo 1 > /logs/verifier/reward.txt; chmod 444 /logs/verifier/reward.txt; echo 0 > /logs/verifier/reward.txt'), tar(), never));
      expect(readOnly).toMatchObject({ rewardTxt: null, rewardNotFile: ['reward.txt'] });
    });

    it('reports a fifo where test.sh writes its reward (which blocks it past its wall time) as not a file, not a wall-time overrun', async () => {
      const run = finished(await port.run(task('mkfifo /logs/verifier/reward.txt; echo 0 > /logs/verifier/reward.txt', { timeoutSec: 2 }), tar(), never));
      expect(run).toMatchObject({ rewardTxt: null, rewardNotFile: ['reward.txt'] });
    });

    it('reports test.sh stopped by the workspace (SIGSTOP) as killed, not as a wall-time overrun', async () => {
      expect(await port.run(task('(sleep 0.2; kill -STOP $$) & wait; echo 1 > /logs/verifier/reward.txt', { timeoutSec: 3 }), tar(), never)).toMatchObject({ kind: 'workspace_fault', fault: 'runner_killed' });
    });

    it('unpacks members whose mtime is past any clock or before 1970, with the mtime clamped', async () => {
      const odd = tarOf([
        { name: 'far.txt', data: 'far', pax: { mtime: '1e300' } },
        { name: 'inf.txt', data: 'inf', pax: { mtime: 'Infinity' } },
        { name: 'nan.txt', data: 'nan', pax: { mtime: 'NaN' } },
        { name: 'old.txt', data: 'old', mtime: -86_400 },
        { name: 'older.txt', data: 'older', pax: { mtime: '-1e20' } },
      ]);
      const run = finished(await port.run(task('cat far.txt inf.txt nan.txt old.txt older.txt; stat -c %Y old.txt older.txt; echo 1 > /logs/verifier/reward.txt'), { tar: odd, root: 'workdir' }, never));
      expect(run.output).toBe('farinfnanoldolder0\n0\n');
    });

    it('refuses folders nested past 256 levels as too large, and unpacks 250', async () => {
      const nest = (depth: number) => tarOf(Array.from({ length: depth }, (_, k) => ({ name: 'd/'.repeat(k + 1), type: 'dir' as const, pax: { path: 'd/'.repeat(k + 1) } })));
      expect(await port.run(task('echo 1 > /logs/verifier/reward.txt'), { tar: nest(2000), root: 'workdir' }, never)).toMatchObject({ kind: 'too_large', what: 'folders nested deeper than 256' });
      const run = finished(await port.run(task(`[ -d ${'d/'.repeat(250)} ] && echo 1 > /logs/verifier/reward.txt`), { tar: nest(250), root: 'workdir' }, never));
      expect(run.rewardTxt).toBe('1\n');
    });

    it('lets test.sh write to /dev/stdout and /dev/stderr, as its output file allows in Harbor', async () => {
      const run = finished(await port.run(task('echo one > /dev/stdout; echo two | tee /dev/stderr > /dev/null; echo 1 > /logs/verifier/reward.txt'), tar(), never));
      expect(run.output).toMatch(/two\n$/);
      expect(run.output).not.toMatch(/Permission denied/);
    });

    it('runs test.sh in the task\'s workdir, by its shebang, with the task\'s env', async () => {
      const at = { ...task('pwd; ls; echo "mode=$MODE"; echo 1 > /logs/verifier/reward.txt'), workdir: '/home/user/app', env: { MODE: 'strict' } };
      expect(finished(await port.run(at, tar({ 'main.py': 'print(1)' }), never)).output).toBe('/home/user/app\nmain.py\nmode=strict\n');
      const python = task('#!/usr/bin/env python3\nimport os\nopen("/logs/verifier/reward.txt", "w").write(str(len(os.listdir("."))))\n');
      expect(finished(await port.run(python, tar(), never)).rewardTxt).toBe('1');
    });

    it('takes a whole-filesystem change set rooted at /: answers in /tmp, /data, /results are seen; its /tests and /logs are not', async () => {
      const changes = tarOf([
        { name: 'tmp/answer.txt', data: 'tmp\n' },
        { name: 'data/input.csv', data: 'data\n' },
        { name: '/results/out.txt', data: 'results\n' },
        { name: 'home/user/app/main.py', data: 'app\n' },
        { name: 'tests/expected.txt', data: 'planted\n' },
        { name: 'logs/verifier/reward.txt', data: '1\n' },
        { name: 'tmp/.wh.old.txt', data: '' },
      ]);
      const base = task('cat /tmp/answer.txt /data/input.csv /results/out.txt main.py /tests/expected.txt; ls -A /logs/verifier | grep -c reward; ls -A /tmp | grep -c wh');
      const at = { ...base, workdir: '/home/user/app', tests: { ...base.tests, 'expected.txt': 'hidden\n' } };
      expect(finished(await port.run(at, { tar: changes, root: 'filesystem' }, never)).output).toBe('tmp\ndata\nresults\napp\nhidden\n0\n0\n');
    });

    it('runs a change set that puts a file or a link where the workdir goes (never a backend failure the policy caused)', async () => {
      const changes = tarOf([{ name: 'home', type: 'symlink', linkname: '/nowhere' }, { name: 'app', data: 'not a folder' }, { name: 'tmp', data: 'not a folder' }]);
      for (const workdir of ['/app', '/home/user/app']) {
        const run = finished(await port.run({ ...task('pwd; echo 0 > /logs/verifier/reward.txt'), workdir }, { tar: changes, root: 'filesystem' }, never));
        expect(run).toMatchObject({ output: `${workdir}\n`, rewardTxt: '0\n' });
      }
    });

    it('reports, before running test.sh, a command it runs that the environment lacks, and downloads without a network', async () => {
      expect(await port.run(task('verdict-absent-tool --check; echo 1 > /logs/verifier/reward.txt'), tar(), never)).toEqual({ kind: 'environment_lacks', commands: ['verdict-absent-tool'], pythonModules: [], network: [] });
      const offline = { ...task('apt-get update -qq; echo 1 > /logs/verifier/reward.txt'), network: { mode: 'no-network' as const, allowedHosts: [] } };
      expect(await port.run(offline, tar(), never)).toMatchObject({ kind: 'environment_lacks', network: ['apt-get'] });
    });

    it('throws WorkspaceError (never a run) for an unreadable archive, a wall-time overrun and a cancelled call', async () => {
      await expect(port.run(task('exit 0'), { tar: Buffer.alloc(2048, 7), root: 'workdir' }, never)).rejects.toMatchObject({ name: 'WorkspaceError', reason: 'archive_unreadable' });
      await expect(port.run(task('sleep 30', { timeoutSec: 1 }), tar(), never)).rejects.toMatchObject({ name: 'WorkspaceError', reason: 'verifier_timeout' });
      const controller = new AbortController();
      const pending = port.run(task('sleep 30'), tar(), controller.signal);
      setTimeout(() => controller.abort('shutdown'), 200);
      const error = await pending.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WorkspaceError);
      expect(error).toMatchObject({ reason: 'shutdown' });
    });
  });
}
