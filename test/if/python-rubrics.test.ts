import { Sandbox, sandboxConfigSection } from '../../services/sandbox';
import { scoreIf } from './helpers';

/** Python rubrics in the real sandbox (services/sandbox): bubblewrap, rlimits, a warm interpreter. */
describe('if verifier: python rubrics', () => {
  let sandbox: Sandbox;
  // A generous CPU limit (and so wall-clock kill at 2 × cpu + 0.5 s): on a loaded 2-core CI machine the
  // memory bomb's page faults must reach the 128 MiB limit before the wall clock does.
  beforeAll(async () => {
    sandbox = await Sandbox.start(sandboxConfigSection.parse({ workers: 1, limits: { cpuMs: 2000, memoryMb: 128 } }));
  });
  afterAll(async () => {
    await sandbox.close();
  });
  const py = (source: string, entry?: string) => ({ rubrics: [{ kind: 'python', source, ...(entry ? { entry } : {}) }] });
  const run = (response: string, source: string, extra: { entry?: string; metadata?: object } = {}) =>
    scoreIf(response, py(source, extra.entry), { services: { sandbox }, metadata: (extra.metadata ?? {}) as never });
  const reason = async (source: string) => ((await run('x', source)).details.rubrics as Array<{ reason?: string }>)[0]?.reason;

  it('passes on True and fails on False', async () => {
    expect(await run('short', 'def check(response, messages):\n    return len(response) < 10')).toMatchObject({ reward: 1 });
    expect(await run('far too long for it', 'def check(response, messages):\n    return len(response) < 10')).toMatchObject({ reward: 0 });
  });

  it('calls the named entry with metadata.messages as the second argument', async () => {
    const source = 'def rubric(response, messages):\n    return messages[-1]["content"] == "Say hi." and response == "hi"';
    expect(await run('hi', source, { entry: 'rubric', metadata: { messages: [{ role: 'user', content: 'Say hi.' }] } })).toMatchObject({ reward: 1 });
  });

  it('fails the rubric when the function raises, loops forever or exhausts its memory', async () => {
    expect(await reason('def check(r, m):\n    raise ValueError("bad " + r)')).toBe('the rubric function raised on this response: ValueError: bad x');
    expect(await reason('def check(r, m):\n    while True:\n        pass')).toBe('the rubric function exceeded its time limit on this response');
    expect(await reason('def check(r, m):\n    a = []\n    while True:\n        a.append(bytearray(10**7))')).toBe(
      'the rubric function exceeded its memory limit on this response',
    );
  });

  it('treats a rubric that does not compile or lacks its entry as an INVALID label', async () => {
    expect(await run('x', 'def check(r m):')).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.rubrics\[0\]\.source: does not compile: SyntaxError/) });
    expect(await run('x', 'def other(r, m):\n    return True')).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.rubrics\[0\]\.entry: /) });
  });

  it('aborts when the sandbox is not configured or fails', async () => {
    expect(await scoreIf('x', py('def check(r, m):\n    return True'))).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable', details: { service: 'sandbox' } });
    const broken = { callFunction: async () => Promise.reject(new Error('worker died')) } as unknown as Sandbox;
    expect(await scoreIf('x', py('def check(r, m):\n    return True'), { services: { sandbox: broken } })).toMatchObject({ status: 'ABORTED', reason: 'sandbox_error' });
  });
});
