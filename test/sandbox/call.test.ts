import type { Sandbox } from '../../services/sandbox';
import { never, startSandbox } from './helpers';

/** callFunction: the contract label-supplied Python (puzzle checkers, IF rubrics) is run under. */
describe('sandbox: callFunction', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ workers: 1, limits: { cpuMs: 300, memoryMb: 128, outputBytes: 4_096 } });
  });
  afterAll(() => sandbox.close());

  const call = (source: string, args: unknown[] = [], entry = 'f') =>
    sandbox.callFunction({ source, entry, args: args as never }, never);

  it('returns JSON: tuples become lists, nested objects survive', async () => {
    expect(await call('def f(a, b):\n    return {"sum": a + b, "pair": (a, b), "none": None, "ok": True}', [2, 3])).toEqual({
      kind: 'returned',
      value: { sum: 5, pair: [2, 3], none: null, ok: true },
    });
    expect(await call('def f(text, params):\n    return text.upper() + params["suffix"]', ['ab', { suffix: '!' }])).toEqual({
      kind: 'returned',
      value: 'AB!',
    });
  });

  it('reports a raise with its class, and a non-JSON result as raised', async () => {
    expect(await call('def f():\n    raise ValueError("bad answer")')).toEqual({ kind: 'raised', error: 'ValueError: bad answer' });
    expect(await call('def f():\n    return {1, 2}')).toMatchObject({ kind: 'raised', error: expect.stringContaining('set is not JSON') });
    expect(await call('def f():\n    return float("nan")')).toMatchObject({ kind: 'raised' });
  });

  it('tells a source that does not compile or load from one that lacks its entry', async () => {
    expect(await call('def f(:\n    pass')).toMatchObject({ kind: 'compile_error', error: expect.stringContaining('SyntaxError') });
    expect(await call('raise RuntimeError("at import")\ndef f(): pass')).toMatchObject({
      kind: 'compile_error',
      error: expect.stringContaining('RuntimeError: at import'),
    });
    expect(await call('def g():\n    return 1')).toMatchObject({ kind: 'missing_entry' });
    expect(await call('f = 3')).toMatchObject({ kind: 'missing_entry' });
  });

  it('reports the limit a call ran into', async () => {
    expect(await call('def f():\n    while True:\n        pass')).toEqual({ kind: 'limit', limit: 'time' });
    expect(await call('def f():\n    return bytearray(4 << 30)')).toEqual({ kind: 'limit', limit: 'memory' });
    expect(await call('def f():\n    return "x" * 100000')).toEqual({ kind: 'limit', limit: 'output' });
  });

  it('gives each call a fresh process: state does not leak between calls of the same source', async () => {
    const source = 'import builtins\ndef f():\n    seen = getattr(builtins, "seen", 0)\n    builtins.seen = seen + 1\n    return seen';
    const results = [await call(source), await call(source), await call(source)];
    expect(results).toEqual([0, 0, 0].map((value) => ({ kind: 'returned', value })));
    // Nor through System V IPC, whose objects outlive the process that made them.
    const segments = 'def f():\n    return len(open("/proc/sysvipc/shm").read().splitlines()) - 1';
    const leave = 'import ctypes\ndef f():\n    return ctypes.CDLL(None).shmget(4321, 4096, 0o1666) >= 0';
    expect(await call(leave)).toEqual({ kind: 'returned', value: true });
    expect(await call(segments)).toEqual({ kind: 'returned', value: 0 });
  });
});
