/**
 * Run by user-mode.test.ts as an unprivileged host user (setpriv): starts the sandbox in user mode
 * and prints one JSON line per probe. Not a test file itself.
 */
import { Sandbox, sandboxConfigSection } from '../../services/sandbox';

async function main(): Promise<void> {
  const sandbox = await Sandbox.start(sandboxConfigSection.parse({ workers: 1, limits: { cpuMs: 500, memoryMb: 128 } }));
  const signal = new AbortController().signal;
  const run = (code: string, stdout = '') => sandbox.runStdio({ code, tests: [{ stdin: '', stdout }] }, signal);
  const identity = [
    'import os',
    'status = open("/proc/self/status").read()',
    'print(os.getuid(), [l.split()[1] for l in status.splitlines() if l.startswith(("CapEff", "CapBnd", "NoNewPrivs"))])',
  ].join('\n');
  const results = {
    mode: sandbox.mode,
    host: process.getuid?.(),
    identity: (await run(identity)).failure?.got,
    killAll: await run('import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass\nprint(1)', '1'),
    killParents: await run('import os\nfor pid in (1, os.getppid()):\n    try:\n        os.kill(pid, 9)\n    except OSError:\n        pass\nprint(2)', '2'),
    after: await run('print(3)', '3'),
    cpu: (await run('while True:\n    pass')).failure?.reason,
    memory: (await run('x = bytearray(8 * 1024 ** 3)')).failure?.reason,
    forkBomb: (await run('import os\nwhile True:\n    os.fork()')).failure?.reason,
    network: await run('import socket\ntry:\n    socket.create_connection(("1.1.1.1", 53), timeout=0.5)\n    print("reached")\nexcept OSError:\n    print("blocked")', 'blocked'),
    asserts: await sandbox.runAsserts({ code: 'def f(x):\n    return x * 2', tests: ['assert f(2) == 4', 'assert f(3) == 6'], fnName: 'f' }, signal),
    call: await sandbox.callFunction({ source: 'def check(a):\n    return a + 1', entry: 'check', args: [41] }, signal),
  };
  await sandbox.close();
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

main().catch((error: unknown) => {
  process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
  process.exit(1);
});
