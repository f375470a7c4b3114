import { execFile } from 'node:child_process';
import path from 'node:path';

/**
 * The sandbox run by an unprivileged host user (issue 17): user mode, through user namespaces. The
 * runner is started with setpriv as uid/gid 64123 with no capability, like a pod's non-root user.
 */
const UID = '64123';

it('user mode: an unprivileged Verdict runs the sandbox with its isolation and limits', async () => {
  const runner = path.join(__dirname, 'user-mode-runner.js');
  const args = ['--reuid', UID, '--regid', UID, '--clear-groups', '--inh-caps=-all', process.execPath, runner];
  const output = await new Promise<string>((resolve) => {
    execFile('setpriv', args, { timeout: 120_000 }, (_error, stdout, stderr) => resolve(stdout || stderr));
  });
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
