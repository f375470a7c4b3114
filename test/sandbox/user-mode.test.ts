import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../services/paths';

/**
 * The sandbox run by an unprivileged host user (issue 17): user mode, through user namespaces. The
 * runner is started with setpriv as uid/gid 64123 with no capability, like a pod's non-root user.
 * The checkout may sit where that user cannot reach (CI clones under /root), so the runner sees
 * it through a bind mount under /tmp, in a mount namespace of its own.
 */
const UID = '64123';

it('user mode: an unprivileged Verdict runs the sandbox with its isolation and limits', async () => {
  const root = packageRoot();
  const view = mkdtempSync(path.join(tmpdir(), 'verdict-user-mode-'));
  chmodSync(view, 0o755);
  const runner = path.join(view, path.relative(root, path.join(__dirname, 'user-mode-runner.js')));
  const script = 'mount --bind "$1" "$2" && shift 2 && exec setpriv "$@"';
  const args = ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', root, view];
  args.push('--reuid', UID, '--regid', UID, '--clear-groups', '--inh-caps=-all', process.execPath, runner);
  const output = await new Promise<string>((resolve) => {
    execFile('unshare', args, { timeout: 120_000 }, (_error, stdout, stderr) => resolve(stdout || stderr));
  });
  rmdirSync(view);
  const results = JSON.parse(output.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
  expect(results).toMatchObject({
    mode: 'user',
    host: Number(UID),
    // uid 0 of the slot's own user namespace (Verdict's uid outside), no capability, no new privileges.
    identity: "0 ['0000000000000000', '0000000000000000', '1']\n",
    // The candidate cannot reach the judge or its zygote: its run passes, and so does the next.
    killAll: { passed: 1, total: 1 },
    killParents: { passed: 1, total: 1 },
    after: { passed: 1, total: 1 },
    cpu: 'time',
    memory: 'memory',
    forkBomb: expect.stringMatching(/^(runtime_error|time)$/),
    network: { passed: 1, total: 1 },
    asserts: { passed: 2, total: 2 },
    call: { kind: 'returned', value: 42 },
  });
});
