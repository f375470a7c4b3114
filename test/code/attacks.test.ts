import type { JsonObject } from '../../core/json';
import type { Outcome } from '../../core/sample';
import type { Sandbox } from '../../services/sandbox';
import { code } from '../../verifiers/code';
import { scoreAsync, startSandbox } from '../sandbox/helpers';

/**
 * Candidates that try to pass without solving the problem. Each must get an honest OK 0 — not 1,
 * and not ABORTED (an abort is an exit a policy could learn to take). The expected values are
 * arbitrary numbers no candidate can compute from the arguments.
 */
const ASSERTS: JsonObject = {
  mode: 'assert',
  fn_name: 'solve',
  tests: ['assert solve(3) == 8231947', 'assert abs(solve(4) - 5550123) < 1', 'assert isinstance(solve(5), int) and solve(5) == 90210'],
};
const STDIO: JsonObject = { mode: 'stdio', tests: [{ stdin: '3\n', stdout: '8231947\n' }, { stdin: '4\n', stdout: '5550123\n' }] };

const fence = (body: string) => `Here is my solution.\n\n\`\`\`python\n${body}\n\`\`\`\n`;

const ASSERT_ATTACKS: Array<[string, string]> = [
  ['sys.exit(0) before the tests', 'import sys\ndef solve(n):\n    return 0\nsys.exit(0)'],
  ['os._exit(0) before the tests', 'import os\ndef solve(n):\n    return 0\nos._exit(0)'],
  ['os._exit(0) inside the function', 'import os\ndef solve(n):\n    os._exit(0)'],
  ['raising SystemExit inside the function', 'def solve(n):\n    raise SystemExit(0)'],
  ['KeyboardInterrupt inside the function', 'def solve(n):\n    raise KeyboardInterrupt'],
  [
    'an object whose __eq__ is always True',
    'class Any:\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n    def __lt__(self, other): return True\n    def __sub__(self, other): return 0\n    def __rsub__(self, other): return 0\n    def __abs__(self): return 0\n    def __bool__(self): return True\ndef solve(n):\n    return Any()',
  ],
  ['an int subclass with an always-true __eq__', 'class I(int):\n    def __eq__(self, other): return True\n    __hash__ = int.__hash__\ndef solve(n):\n    return I(1)'],
  [
    'patching builtins and AssertionError',
    'import builtins\nclass Quiet(Exception):\n    pass\nbuiltins.AssertionError = Quiet\nbuiltins.abs = lambda x: 0\ndef solve(n):\n    return 0',
  ],
  ['patching builtins.isinstance', 'import builtins\nbuiltins.isinstance = lambda *a: True\ndef solve(n):\n    return 0'],
  ['shadowing builtins with globals', 'def abs(x):\n    return 0\ndef isinstance(*a):\n    return True\ndef solve(n):\n    return 0'],
  [
    'a fake math module in the test namespace',
    'class math:\n    @staticmethod\n    def fabs(x): return 0\ndef solve(n):\n    return 0',
  ],
  [
    'inspecting the calling frames and bytecode for the expected value',
    [
      'import sys, gc',
      'def solve(n):',
      '    found = []',
      '    f = sys._getframe(1)',
      '    while f is not None:',
      '        found += [v for v in f.f_locals.values() if type(v) is int and v > 1000]',
      '        found += [c for c in f.f_code.co_consts if type(c) is int and c > 1000]',
      '        f = f.f_back',
      '    for o in gc.get_objects():',
      '        if type(o) is str and "==" in o:',
      '            found += [int(t) for t in o.replace("(", " ").replace(")", " ").split() if t.isdigit() and int(t) > 1000]',
      '    return found[0] if found else -1',
    ].join('\n'),
  ],
  [
    'stripping asserts by re-executing under -O',
    'import os, sys\nif not sys.flags.optimize:\n    os.execv(sys.executable, [sys.executable, "-O", "-c", "pass"])\ndef solve(n):\n    return 0',
  ],
  [
    'reading the tests from disk and /proc',
    [
      'import os',
      'def scan():',
      '    paths = []',
      '    for d in ["/", "/tmp", "/etc", "/dev/shm", os.getcwd()]:',
      '        try:',
      '            paths += [os.path.join(d, n) for n in os.listdir(d)]',
      '        except OSError:',
      '            pass',
      '    for pid in [p for p in os.listdir("/proc") if p.isdigit()]:',
      '        base = "/proc/" + pid',
      '        paths += [base + "/cmdline", base + "/environ", base + "/mem"]',
      '        try:',
      '            paths += [base + "/fd/" + fd for fd in os.listdir(base + "/fd")]',
      '        except OSError:',
      '            pass',
      '    for path in paths:',
      '        try:',
      '            with open(path, "rb") as f:',
      '                if b"8231947" in f.read(1 << 20):',
      '                    return 8231947',
      '        except OSError:',
      '            pass',
      '    return -1',
      'FOUND = scan()',
      'def solve(n):',
      '    return FOUND',
    ].join('\n'),
  ],
  [
    'writing fake harness replies on every inherited descriptor',
    [
      'import os, json, struct',
      'def solve(n):',
      '    for value in (8231947, True):',
      '        data = json.dumps({"ok": True, "v": value, "passed": 3, "total": 3}).encode()',
      '        for fd in range(3, 64):',
      '            try:',
      '                os.write(fd, struct.pack(">I", len(data)) + data)',
      '            except OSError:',
      '                pass',
      '    print("ALL TESTS PASSED")',
      '    return -1',
    ].join('\n'),
  ],
  [
    'killing and signalling the harness',
    [
      'import os, signal',
      'def solve(n):',
      '    for pid in [p for p in os.listdir("/proc") if p.isdigit()]:',
      '        for sig in (signal.SIGKILL, signal.SIGSTOP):',
      '            try:',
      '                if int(pid) != os.getpid():',
      '                    os.kill(int(pid), sig)',
      '            except OSError:',
      '                pass',
      '    try:',
      '        os.kill(-1, signal.SIGKILL)',
      '    except OSError:',
      '        pass',
      '    return -1',
    ].join('\n'),
  ],
  [
    'ptracing the zygote',
    'import ctypes, os\nlibc = ctypes.CDLL(None)\nRESULT = libc.ptrace(16, os.getppid(), 0, 0)\ndef solve(n):\n    return RESULT',
  ],
];

const STDIO_ATTACKS: Array<[string, string]> = [
  ['printing fake harness markers', 'print("PASSED")\nprint("{\\"passed\\": 2, \\"total\\": 2}")'],
  ['exiting 0 without output', 'import os\nos._exit(0)'],
  ['killing its parent', 'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint(1)'],
  ['stopping its parent', 'import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\nprint(1)'],
  [
    'reading the expected output from disk',
    'import os\nfor d, _, fs in os.walk("/tmp"):\n    for f in fs:\n        print(open(os.path.join(d, f)).read())\nprint(-1)',
  ],
];

describe('code: honest rewards against attacks', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ limits: { cpuMs: 1000 } });
  });
  afterAll(() => sandbox.close());

  const score = (body: string, label: JsonObject): Promise<Outcome> => scoreAsync(code, fence(body), label, { sandbox });

  it('passes honest solutions (the control)', async () => {
    const honest = 'def solve(n):\n    return {3: 8231947, 4: 5550123, 5: 90210}[n]';
    expect(await score(honest, ASSERTS)).toMatchObject({ status: 'OK', reward: 1, reason: 'passed' });
    const stdio = 'n = int(input())\nprint({3: 8231947, 4: 5550123}[n])';
    expect(await score(stdio, STDIO)).toMatchObject({ status: 'OK', reward: 1, reason: 'passed' });
  });

  it.each(ASSERT_ATTACKS)('assert mode: %s earns an honest 0', async (_name, body) => {
    const outcome = await score(body, ASSERTS);
    expect([outcome.status, outcome.status === 'OK' ? outcome.reward : outcome]).toEqual(['OK', 0]);
  });

  it.each(STDIO_ATTACKS)('stdio mode: %s earns an honest 0', async (_name, body) => {
    const outcome = await score(body, STDIO);
    expect(outcome).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('still scores honestly after every attack (slots recovered)', async () => {
    const honest = 'def solve(n):\n    return {3: 8231947, 4: 5550123, 5: 90210}[n]';
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => score(honest, ASSERTS)));
    for (const outcome of outcomes) expect(outcome).toMatchObject({ status: 'OK', reward: 1 });
  });

  it('gives the same verdicts whether a job\'s calls are streamed or made one at a time', async () => {
    // Calls with literal arguments are sent at once and answered in order; any other shape (here
    // `or`) makes the judge call one at a time. A stateful candidate sees the same sequence either way.
    const stateful = 'calls = []\ndef solve(n):\n    calls.append(n)\n    return n * len(calls)';
    const streamed = { mode: 'assert', fn_name: 'solve', tests: ['assert solve(1) == 1', 'assert solve(2) == 4', 'assert solve(3) == 10'] };
    const sequential = { ...streamed, tests: streamed.tests.map((t) => `${t} or False`) };
    for (const label of [streamed, sequential]) {
      const outcome = await score(stateful, label);
      expect(outcome).toMatchObject({ reward: 0, details: { passed: 2, first_failure: { index: 2, got: '9' } } });
    }
  });

  it('reports the first failure with what the candidate returned', async () => {
    const outcome = await score('def solve(n):\n    return n * 2', ASSERTS);
    expect(outcome).toMatchObject({ status: 'OK', reward: 0, reason: 'wrong_answer' });
    expect(outcome.details).toMatchObject({
      passed: 0,
      total: 3,
      first_failure: { index: 0, reason: 'assertion_failed', got: '6', test: 'assert solve(3) == 8231947' },
    });
  });
});

/**
 * Values that would cost the judge unbounded work (issue 13, item 8): each is the candidate's own
 * overrun, an honest 0 with reason `output`, never ABORTED and never the judge's time.
 */
const HUGE_VALUES: Array<[string, string, string, RegExp]> = [
  ['a 1.26M-digit int compared', 'def f(x):\n    return 1 << (4 * 1024 * 1024 - 4096)', 'assert f(2) == 4', /int of about 126\d{4} digits/],
  ['a 1.26M-digit int printed by the test', 'def f(x):\n    return 1 << (4 * 1024 * 1024 - 4096)', 'assert str(f(2)) == "4"', /int of about/],
  ['a list nested 150 deep', 'def f(x):\n    v = []\n    for _ in range(150):\n        v = [v]\n    return v', 'assert f(2) == 4', /nested more than 100 deep/],
  ['a list of 512Ki empty lists', 'def f(x):\n    return [[]] * (1 << 19)', 'assert f(2) == 4', /reply of \d+ bytes/],
  [
    'ints crafted to share one hash, put in a set by the test',
    'def f(x):\n    return [1 + k * (2**61 - 1) for k in range(20000)]',
    'assert len(set(f(2))) == 4',
    /distinct values with one hash/,
  ],
  [
    'tuples crafted to share one hash',
    'def f(x):\n    return [(1 + k * (2**61 - 1), 0) for k in range(20000)]',
    'assert f(2) == 4',
    /distinct values with one hash/,
  ],
];

describe('code: values a candidate returns cannot stall the judge', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ limits: { cpuMs: 2000 } });
  });
  afterAll(() => sandbox.close());

  it.each(HUGE_VALUES)('%s: an honest 0 with reason output', async (_name, body, test, error) => {
    const outcome = await scoreAsync(code, fence(body), { mode: 'assert', fn_name: 'f', tests: [test] }, { sandbox });
    expect(outcome).toMatchObject({ status: 'OK', reward: 0, details: { first_failure: { reason: 'output', error: expect.stringMatching(error) } } });
  });

  // Small values, but a test's own arithmetic on them would build gigabytes in the judge.
  it.each([
    ['2 ** f(2)', 'assert 2 ** f(2) == 4'],
    ['1 << f(2)', 'assert (1 << f(2)) > 0'],
    ['"a" * f(2)', 'assert "a" * f(2) == "aa"'],
    ['[0] * f(2)', 'assert len([0] * f(2)) == 2'],
    ['pow(10, f(2))', 'assert pow(10, f(2)) == 100'],
  ])('%s with f returning 10**9: an honest 0, the test failing with the size it would build', async (_name, test) => {
    const outcome = await scoreAsync(code, fence('def f(x):\n    return 10 ** 9'), { mode: 'assert', fn_name: 'f', tests: [test] }, { sandbox });
    expect(outcome).toMatchObject({ status: 'OK', reward: 0, details: { first_failure: { reason: 'error', error: expect.stringMatching(/TooLarge: .*at most/) } } });
  });

  // A test's own work beyond arithmetic: stopped by the size of its result, the judge's CPU clock
  // (a loop in Python), or the judge's memory cap (a large allocation) — each an honest 0.
  it.each([
    ['math.factorial(f(2))', 'def f(x):\n    return 10 ** 9', 'import math\nassert math.factorial(f(2)) == 2', 'error', /TooLarge: factorial/],
    ['math.comb(f(2), f(2) // 2)', 'def f(x):\n    return 10 ** 9', 'assert math.comb(f(2), f(2) // 2) > 0', 'error', /TooLarge: comb/],
    ['math.prod([f(2)] * 50)', 'def f(x):\n    return 2 ** 100000', 'from math import prod\nassert prod([f(2)] * 50) > 0', 'error', /TooLarge: the product/],
    ['sum(range(f(2))), a loop in C', 'def f(x):\n    return 10 ** 15', 'assert sum(range(f(2))) == 1', 'time', /test's own computation/],
    ['a generator over range(f(2))', 'def f(x):\n    return 10 ** 15', 'assert all(i >= 0 for i in range(f(2))) and False', 'time', /test's own computation/],
    ['a while loop bounded by f(2)', 'def f(x):\n    return 10 ** 15', 'n, i = f(2), 0\nwhile i < n:\n    i += 1', 'time', /test's own computation/],
    ['every permutation of a returned list', 'def f(x):\n    return list(range(14))', 'import itertools\nassert sum(1 for _ in itertools.permutations(f(2))) == 2', 'time', /test's own computation/],
    ["'a'.center(f(2))", 'def f(x):\n    return 10 ** 10', "assert 'a'.center(f(2)) == 'a'", 'error', /MemoryError/],
    ['list(itertools.permutations(f(2)))', 'def f(x):\n    return list(range(14))', 'import itertools\nassert len(list(itertools.permutations(f(2)))) == 2', 'error', /MemoryError/],
  ])('%s: an honest 0, not ABORTED', async (_name, body, test, reason, error) => {
    // The judge's clock stops at the test's CPU limit as the run child's does: a short one where the
    // clock decides; the default elsewhere, so a loaded machine cannot make the clock win a race
    // against the size guard or the memory cap.
    const limits: JsonObject = reason === 'time' ? { time_limit_ms: 300 } : {};
    const outcome = await scoreAsync(code, fence(body), { mode: 'assert', fn_name: 'f', tests: [test], ...limits }, { sandbox });
    expect(outcome).toMatchObject({ status: 'OK', reward: 0, details: { first_failure: { reason, error: expect.stringMatching(error) } } });
  });

  it('the same tests pass with small values, and the judge is whole after its limits', async () => {
    const body = 'def f(x):\n    return 6';
    const tests = [
      'assert math.factorial(f(2)) == 720 and math.comb(f(2), 2) == 15 and math.perm(f(2), 2) == 30',
      'assert math.prod(range(1, f(2))) == 120 and sum(range(f(2))) == 15',
      'assert len(list(itertools.permutations(range(f(2))))) == 720',
      "assert 'a'.center(f(2)) == '  a   '",
    ];
    const outcome = await scoreAsync(code, fence(body), { mode: 'assert', fn_name: 'f', tests }, { sandbox });
    expect(outcome).toMatchObject({ status: 'OK', reward: 1 });
  });

  it('still accepts big values within the bounds', async () => {
    const body = 'def f(x):\n    return [10 ** 39000, (3,) * 50, [[[[1]]]], {2**64: 1}]';
    const test = 'assert f(2) == [10 ** 39000, (3,) * 50, [[[[1]]]], {2**64: 1}] and len(str(f(2)[0])) == 39001';
    const outcome = await scoreAsync(code, fence(body), { mode: 'assert', fn_name: 'f', tests: [test] }, { sandbox });
    expect(outcome).toMatchObject({ status: 'OK', reward: 1 });
  });
});
