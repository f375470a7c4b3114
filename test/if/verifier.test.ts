import type { JudgePort as Judge, JudgeRequest, JudgeResult } from '../../core/ports/judge';
import { jsIsolateConfigSection, JsIsolates } from '../../services/js-isolate';
import { scoreIf } from './helpers';

const words = (n: number) => ({ kind: 'constraint', id: 'length_constraints:number_words', kwargs: { num_words: n, relation: 'at least' } });
const noComma = { kind: 'constraint', id: 'punctuation:no_comma' };

describe('if verifier: constraint rubrics', () => {
  it('rewards 1 only when every rubric passes, and says which failed and why', async () => {
    expect(await scoreIf('Three short words', { rubrics: [words(3), noComma] })).toMatchObject({ status: 'OK', reward: 1, reason: 'all_rubrics_passed' });
    const failed = await scoreIf('Three, short words', { rubrics: [words(5), noComma] });
    expect(failed).toMatchObject({ status: 'OK', reward: 0, reason: 'rubric_failed' });
    expect(failed.details).toEqual({
      mode: 'strict',
      rubrics: [
        { index: 0, kind: 'constraint', id: 'length_constraints:number_words', verdict: 'fail', reason: 'found 3 words, expected at least 5' },
        { index: 1, kind: 'constraint', id: 'punctuation:no_comma', verdict: 'fail', reason: 'found 1 comma' },
      ],
    });
  });

  it('grades the text after the last </think>; an unclosed <think> gets 0', async () => {
    expect(await scoreIf('<think>a, b, c</think>\n\nNo commas here', { rubrics: [noComma] })).toMatchObject({ reward: 1 });
    expect(await scoreIf('<think>still thinking', { rubrics: [noComma] })).toMatchObject({ status: 'OK', reward: 0, reason: 'unclosed_think' });
  });

  it('applies the loose mode when the label asks for it', async () => {
    const label = (mode: string) => ({ mode, rubrics: [noComma] });
    expect(await scoreIf('Sure, here:\nno commas below', label('strict'))).toMatchObject({ reward: 0 });
    expect(await scoreIf('Sure, here:\nno commas below', label('loose'))).toMatchObject({ reward: 1 });
  });

  it('runs dataset rows unchanged, null kwargs included', async () => {
    const row = { kind: 'constraint', id: 'count:numbers', kwargs: { N: 2.0, unused: null } };
    expect(await scoreIf('I have 2 cats and 3 dogs.', { rubrics: [row] })).toMatchObject({ reward: 1 });
  });

  it('rejects bad labels naming the field', async () => {
    expect(await scoreIf('x', { rubrics: [] })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.rubrics: /) });
    expect(await scoreIf('x', { rubrics: [{ kind: 'constraint', id: 'length_constraints:number_words', kwargs: { relation: 'at least' } }] })).toEqual({
      status: 'INVALID',
      reason: 'label.rubrics[0].kwargs.num_words: required',
      details: {},
    });
    expect(await scoreIf('x', { rubrics: [{ kind: 'constraint', id: 'nope:nope' }] })).toMatchObject({
      status: 'INVALID',
      reason: expect.stringMatching(/^label\.rubrics\[0\]\.id: unknown instruction id "nope:nope"/),
    });
    expect(await scoreIf('x', { rubrics: [{ kind: 'constraint', id: 'count:numbers', kwargs: { N: 1, M: 2 } }] })).toMatchObject({
      reason: 'label.rubrics[0].kwargs.M: unknown kwarg',
    });
    expect(await scoreIf('x', { rubrics: [{ kind: 'regex', pattern: 'a' }] })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.rubrics\[0\]\.kind: /) });
    expect(await scoreIf('x', { rubrics: [noComma], mode: 'lenient' })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.mode: /) });
    expect(await scoreIf('x', { rubrics: [noComma] }, { metadata: { messages: [{ content: 'hi' }] } })).toMatchObject({
      status: 'INVALID',
      reason: expect.stringMatching(/^metadata\.messages\[0\]\.role: /),
    });
  });
});

/** An in-process stand-in for a judge endpoint (the `Judge` interface of services/judge). */
class FakeJudge implements Judge {
  readonly name = 'if';
  readonly model = 'fake';
  readonly asked: string[] = [];
  constructor(private readonly answer: (prompt: string) => JudgeResult<unknown>) {}
  async judge<T>(request: JudgeRequest<T>): Promise<JudgeResult<T>> {
    const prompt = request.messages.map((m) => m.content).join('\n');
    this.asked.push(prompt);
    return this.answer(prompt) as JudgeResult<T>;
  }
}

const satisfied = (ok: boolean, reason = 'because'): JudgeResult<unknown> => ({ ok: true, value: { reason, satisfied: ok }, source: 'judge', attempts: 1 });

describe('if verifier: judge rubrics', () => {
  const judgeRubric = (question: string) => ({ kind: 'judge', question });

  it('asks the judge last, and not at all once an earlier rubric failed', async () => {
    const judge = new FakeJudge(() => satisfied(true));
    const services = { judges: new Map([['if', judge]]) };
    const failed = await scoreIf('a, b', { rubrics: [judgeRubric('Is it polite?'), noComma] }, { services });
    expect(failed).toMatchObject({ reward: 0 });
    expect(judge.asked).toHaveLength(0);
    expect((failed.details.rubrics as Array<{ verdict: string }>)[0]?.verdict).toBe('skipped');

    const passed = await scoreIf('No commas', { rubrics: [judgeRubric('Is it polite?'), noComma] }, { services, metadata: { messages: [{ role: 'user', content: 'Be polite.' }] } });
    expect(passed).toMatchObject({ reward: 1, reason: 'all_rubrics_passed' });
    expect(judge.asked).toHaveLength(1);
    expect(judge.asked[0]).toContain('Be polite.');
    expect(judge.asked[0]).toContain('Is it polite?');
  });

  it('fails with the judge reason, and a judge that gives up or is missing aborts', async () => {
    const no = new FakeJudge(() => satisfied(false, 'it is rude'));
    const r = await scoreIf('No commas', { rubrics: [judgeRubric('Is it polite?')] }, { services: { judges: new Map([['if', no]]) } });
    expect(r).toMatchObject({ reward: 0, details: { rubrics: [{ verdict: 'fail', reason: 'it is rude' }] } });
    const down = new FakeJudge(() => ({ ok: false, kind: 'timeout', message: 'slow', attempts: 3 }));
    expect(await scoreIf('x', { rubrics: [judgeRubric('q')] }, { services: { judges: new Map([['if', down]]) } })).toMatchObject({ status: 'ABORTED', reason: 'judge_timeout' });
    expect(await scoreIf('x', { rubrics: [judgeRubric('q')] })).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable' });
  });
});

describe('if verifier: js rubrics (isolated-vm)', () => {
  const services = { jsIsolate: new JsIsolates(jsIsolateConfigSection.parse({ timeoutMs: 300, memoryMb: 16 })) };
  const js = (source: string) => ({ rubrics: [{ kind: 'js', source }] });

  it('passes on true and fails on false or a non-boolean', async () => {
    expect(await scoreIf('short', js('(r) => r.length < 10'), { services })).toMatchObject({ reward: 1 });
    expect(await scoreIf('this one is too long', js('(r) => r.length < 10'), { services })).toMatchObject({
      reward: 0,
      details: { rubrics: [{ verdict: 'fail', reason: 'the rubric function returned false' }] },
    });
    expect(await scoreIf('x', js('(r) => "yes"'), { services })).toMatchObject({ reward: 0, details: { rubrics: [{ reason: expect.stringContaining('not a boolean') }] } });
  });

  it('receives metadata.messages as its second argument', async () => {
    const metadata = { messages: [{ role: 'user', content: 'Name a fruit.' }] };
    expect(await scoreIf('apple', js('(r, m) => m[0].content === "Name a fruit." && r === "apple"'), { services, metadata })).toMatchObject({ reward: 1 });
  });

  it('fails the rubric when the function raises, loops forever or exhausts its memory', async () => {
    const reason = async (source: string) => ((await scoreIf('x', js(source), { services })).details.rubrics as Array<{ reason?: string }>)[0]?.reason;
    expect(await reason('(r) => { throw new TypeError("no " + r) }')).toBe('the rubric function raised on this response: TypeError: no x');
    expect(await reason('(r) => { while (true) {} }')).toBe('the rubric function exceeded its time limit on this response');
    // Its own CPU allowance of 10 s: the collections V8 runs as the heap nears its 16 MiB may pass
    // 300 ms of CPU on a busy machine (once in CI), and CPU is checked first. Either is the rubric's
    // failure (0); this case is about the reason.
    const roomy = { jsIsolate: new JsIsolates(jsIsolateConfigSection.parse({ timeoutMs: 10_000, memoryMb: 16 })) };
    const hog = (await scoreIf('x', js('(r) => { const a = []; while (true) a.push(new Array(1e6).fill(1.5)); }'), { services: roomy })).details.rubrics as Array<{ reason?: string }>;
    expect(hog[0]?.reason).toBe('the rubric function exceeded its memory limit on this response');
  });

  it('has no WebAssembly: its memory is outside the heap limit, and filling it is one call no timeout stops', async () => {
    const fill = '(r) => { const m = new WebAssembly.Memory({ initial: 65536 }); new Uint8Array(m.buffer).fill(1); return true; }';
    const outcome = await scoreIf('x', js(fill), { services });
    expect(outcome).toMatchObject({ status: 'OK', reward: 0 });
    expect((outcome.details.rubrics as Array<{ reason?: string }>)[0]?.reason).toMatch(/WebAssembly is not defined/);
    expect(await scoreIf('x', js('(r) => typeof WebAssembly === "undefined" && typeof globalThis.WebAssembly === "undefined"'), { services })).toMatchObject({ reward: 1 });
  });

  it('cannot block without CPU: Atomics.wait is gone (only the host\'s load can reach the wall-clock backstop)', async () => {
    const wait = '(r) => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000); return true; }';
    const outcome = await scoreIf('x', js(wait), { services });
    expect(outcome).toMatchObject({ status: 'OK', reward: 0 });
    expect((outcome.details.rubrics as Array<{ reason?: string }>)[0]?.reason).toMatch(/Atomics.wait is not a function/);
  });

  it('has no I/O and no randomness', async () => {
    expect(await scoreIf('x', js('(r) => typeof require === "undefined" && typeof process === "undefined" && typeof fetch === "undefined"'), { services })).toMatchObject({ reward: 1 });
    expect(await scoreIf('x', js('(r) => Math.random() < 2'), { services })).toMatchObject({ reward: 0 });
  });

  it('treats source that does not compile or is not a function as an INVALID label', async () => {
    expect(await scoreIf('x', js('(r) => {'), { services })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.rubrics\[0\]\.source: does not compile: /) });
    expect(await scoreIf('x', js('42'), { services })).toMatchObject({ status: 'INVALID', reason: expect.stringContaining('not a function') });
  });

  it('aborts when the service is not there', async () => {
    expect(await scoreIf('x', js('(r) => true'))).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable', details: { service: 'jsIsolate' } });
  });
});
