import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { SandboxError, type TestReport } from '../../core/ports/sandbox';
import type { Sandbox } from '../../services/sandbox';
import { never, startSandbox } from './helpers';

/** One stdio run of `code` whose output must equal `stdout`; the report says how it failed if not. */
function run(sandbox: Sandbox, code: string, stdout = '', stdin = ''): Promise<TestReport> {
  return sandbox.runStdio({ code, tests: [{ stdin, stdout }] }, never);
}

describe('sandbox: limits and isolation (real bubblewrap)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ limits: { cpuMs: 300, memoryMb: 128, outputBytes: 65_536, fileMb: 1 } });
  });
  afterAll(() => sandbox.close());

  it('runs a program as __main__ with stdin and compares its stdout', async () => {
    const main = 'def main():\n    print(sum(map(int, input().split())))\nif __name__ == "__main__":\n    main()';
    expect(await run(sandbox, main, '3\n', '1 2\n')).toEqual({ passed: 1, total: 1 });
    // exit() and quit() exist as under a normal interpreter, though Python starts without `site`.
    expect(await run(sandbox, 'print(1)\nexit()\nprint(2)', '1')).toEqual({ passed: 1, total: 1 });
  });

  it('stops a fork bomb at the process limit, and the slot keeps working', async () => {
    const report = await run(sandbox, 'import os\nwhile True:\n    os.fork()');
    expect(report.failure?.reason).toMatch(/^(runtime_error|time)$/);
    expect(await run(sandbox, 'print(1)', '1')).toEqual({ passed: 1, total: 1 });
  });

  it('stops a memory bomb with MemoryError (address-space limit), however slow the machine', async () => {
    // The verdict must not depend on CPU speed: under load, touching 128 MiB page by page can outlast
    // a 300 ms CPU budget. So these runs get a CPU budget no memory bomb can reach first, and two of
    // the bombs reserve address space without touching it (one allocation; calloc'd bytes objects).
    const bombs = [
      'x = bytearray(8 * 1024 ** 3)',
      'x = []\nwhile True:\n    x.append(bytes(1 << 20))',
      'x = []\nwhile True:\n    x.append(bytearray(1 << 20))',
    ];
    for (const code of bombs) {
      const report = await sandbox.runStdio({ code, tests: [{ stdin: '', stdout: '' }], limits: { cpuMs: 20_000 } }, never);
      expect(report.failure).toMatchObject({ reason: 'memory', error: expect.stringContaining('MemoryError') });
    }
  });

  it('cuts infinite output at the output limit', async () => {
    const report = await run(sandbox, 'while True:\n    print("x" * 1000)');
    expect(report.failure).toMatchObject({ reason: 'output' });
  });

  it('kills a sleeping program at the wall-clock limit, and a spinning one at the CPU limit', async () => {
    expect((await run(sandbox, 'import time\ntime.sleep(60)')).failure).toMatchObject({ reason: 'time', error: 'wall-clock limit' });
    expect((await run(sandbox, 'while True:\n    pass')).failure).toMatchObject({ reason: 'time' });
  });

  it('kills the whole process tree at the limit: a detached grandchild does not outlive the run', async () => {
    const spawn = 'import os, time\nif os.fork() == 0:\n    os.setsid()\n    while True:\n        time.sleep(1)\nprint(os.getpid())';
    await run(sandbox, spawn, 'x');
    // After the sweep, a run of the same slot sees no other process of its uid but itself and the zygote.
    const count = 'import os\nme = os.getuid()\nprint(sum(1 for p in os.listdir("/proc") if p.isdigit() and os.stat("/proc/" + p).st_uid == me))';
    const reports = await Promise.all([run(sandbox, count, '2'), run(sandbox, count, '2')]);
    for (const report of reports) expect(report).toEqual({ passed: 1, total: 1 });
  });

  describe('the network', () => {
    let server: Server;
    let port = 0;
    beforeAll(async () => {
      server = createServer((socket) => socket.end('reached\n'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('is not reachable at all, not even the host loopback', async () => {
      const probe = [
        'import socket',
        `for host, port in [("127.0.0.1", ${port}), ("1.1.1.1", 53), ("8.8.8.8", 443)]:`,
        '    try:',
        '        socket.create_connection((host, port), timeout=0.5).recv(16)',
        '        print("reached")',
        '    except OSError:',
        '        print("blocked")',
        'try:',
        '    socket.getaddrinfo("example.com", 80)',
        '    print("resolved")',
        'except OSError:',
        '    print("no dns")',
      ].join('\n');
      expect(await run(sandbox, probe, 'blocked\nblocked\nblocked\nno dns')).toEqual({ passed: 1, total: 1 });
    });
  });

  it('lets a run write only to its own tmpfs working directory', async () => {
    const probe = [
      'import os',
      'for path in ["/tmp/ok", "/x", "/usr/x", "/etc/x", "/dev/shm/x", "/proc/x", "/home/x", "/root/x", "/work/x"]:',
      '    try:',
      '        with open(path, "w") as f:',
      '            f.write("data")',
      '        print("wrote", path)',
      '    except OSError:',
      '        pass',
      'print(os.getcwd())',
    ].join('\n');
    expect(await run(sandbox, probe, 'wrote /tmp/ok\n/tmp')).toEqual({ passed: 1, total: 1 });
    // The next run finds the directory empty: nothing carries over between runs.
    expect(await run(sandbox, 'import os\nprint(os.listdir("/tmp"))', '[]')).toEqual({ passed: 1, total: 1 });
  });

  it('has no view of the project, $HOME or the host, and runs as an unprivileged uid without capabilities', async () => {
    const probe = [
      'import os',
      `print([p for p in [${JSON.stringify(process.cwd())}, "/root", "/home", "/work", "/etc/passwd", "/var"] if os.path.exists(p)])`,
      'print(os.getuid() != 0, os.getgid() != 0)',
      'status = open("/proc/self/status").read()',
      'print([l.split()[1] for l in status.splitlines() if l.startswith(("CapEff", "CapPrm", "NoNewPrivs"))])',
      'print(len([p for p in os.listdir("/proc") if p.isdigit()]) < 10)',
    ].join('\n');
    const expected = "[]\nTrue True\n['0000000000000000', '0000000000000000', '1']\nTrue";
    expect(await run(sandbox, probe, expected)).toEqual({ passed: 1, total: 1 });
  });

  it('enforces the file-size and open-file limits', async () => {
    const big = 'try:\n    open("/tmp/big", "wb").write(b"x" * (4 << 20))\n    print("wrote")\nexcept OSError as e:\n    print("refused")';
    expect(await run(sandbox, big, 'refused')).toEqual({ passed: 1, total: 1 });
    const files = 'fs = []\ntry:\n    for i in range(1000):\n        fs.append(open("/dev/null"))\nexcept OSError:\n    print("capped", len(fs) < 100)';
    expect(await run(sandbox, files, 'capped True')).toEqual({ passed: 1, total: 1 });
  });

  it('is deterministic: the same hash seed and random seed in every run and slot', async () => {
    const probe = 'import random\nprint(list({"apple", "pear", "fig", "kiwi", "plum"}), random.random())';
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => run(sandbox, probe, '')));
    const outputs = [a, b, c].map((r) => r?.failure?.got);
    expect(outputs[0]).toBeTruthy();
    expect(new Set(outputs).size).toBe(1);
  });

  it("starts random seeded with 0, and the candidate's own forks carry on from its state (no fresh seed from the OS)", async () => {
    const probe = [
      'import os, random',
      'first = random.random()',
      'random.seed(0)',
      'print(first == random.random())',
      'r, w = os.pipe()',
      'if os.fork() == 0:',
      '    os.write(w, repr(random.random()).encode())',
      '    os._exit(0)',
      'os.wait()',
      'print(os.read(r, 64).decode() == repr(random.random()))',
    ].join('\n');
    expect(await run(sandbox, probe, 'True\nTrue')).toEqual({ passed: 1, total: 1 });
  });
});

describe('sandbox: faults of the sandbox itself are errors, never verdicts', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ limits: { cpuMs: 2000 } });
  });
  afterAll(() => sandbox.close());

  it('recovers when a candidate kills its zygote: that run fails, the next ones pass', async () => {
    const report = await run(sandbox, 'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint(1)', '1');
    expect(report.failure).toMatchObject({ reason: 'disrupted' });
    const next = await Promise.all([1, 2, 3, 4].map(() => run(sandbox, 'print(1)', '1')));
    for (const r of next) expect(r).toEqual({ passed: 1, total: 1 });
  });

  it('recovers when a whole slot is killed from outside while idle', async () => {
    const slots = execFileSync('ps', ['-o', 'pid=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);
    expect(slots.length).toBeGreaterThan(0);
    process.kill(slots[0]!, 'SIGKILL');
    const next = await Promise.all([1, 2, 3, 4].map(() => run(sandbox, 'print(2)', '2')));
    for (const r of next) expect(r).toEqual({ passed: 1, total: 1 });
  });

  it('rejects with the signal reason when the deadline passed before the run started, and mid-run', async () => {
    const expired = new AbortController();
    expired.abort('deadline');
    await expect(sandbox.runStdio({ code: 'print(1)', tests: [{ stdin: '', stdout: '1' }] }, expired.signal)).rejects.toMatchObject({
      reason: 'deadline',
    });
    const later = new AbortController();
    const running = sandbox.runStdio({ code: 'import time\ntime.sleep(30)', tests: [{ stdin: '', stdout: '' }] }, later.signal);
    setTimeout(() => later.abort('cancelled'), 200);
    await expect(running).rejects.toBeInstanceOf(SandboxError);
    await expect(running).rejects.toMatchObject({ reason: 'cancelled' });
    expect(await run(sandbox, 'print(3)', '3')).toEqual({ passed: 1, total: 1 });
  });

  it('rejects with sandbox_closed when shut down, for running, queued and later jobs', async () => {
    const other = await startSandbox({ workers: 1 });
    const running = run(other, 'import time\ntime.sleep(30)');
    const queued = run(other, 'print(1)', '1');
    const expectations = [running, queued].map((job) => expect(job).rejects.toMatchObject({ reason: 'sandbox_closed' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await other.close();
    await Promise.all(expectations);
    await expect(run(other, 'print(1)', '1')).rejects.toMatchObject({ reason: 'sandbox_closed' });
  });
});
