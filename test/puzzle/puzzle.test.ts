import type { JsonObject } from '../../core/json';
import type { Sandbox } from '../../services/sandbox';
import { puzzle } from '../../verifiers/puzzle';
import { scoreAsync, startSandbox } from '../sandbox/helpers';

const CHECKER = [
  'def check(answer, params):',
  '    # A Reasoning-Gym-style scorer: exact list of the sorted numbers.',
  '    try:',
  '        got = [int(x) for x in answer.replace(",", " ").split()]',
  '    except ValueError:',
  '        return 0.0',
  '    want = sorted(params["numbers"])',
  '    if got == want:',
  '        return 1.0',
  '    return 0.5 if sorted(got) == want else 0.0',
].join('\n');

const label = (extra: JsonObject = {}): JsonObject => ({ checker: CHECKER, params: { numbers: [3, 1, 2] }, ...extra });

describe('puzzle verifier', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ limits: { cpuMs: 300 } });
  });
  afterAll(() => sandbox.close());
  const score = (response: string, l: JsonObject) => scoreAsync(puzzle, response, l, { sandbox });

  it('rewards an answer the checker accepts, and not one it rejects', async () => {
    expect(await score('<think>sorting</think> The answer is \\boxed{1, 2, 3}', label())).toMatchObject({
      status: 'OK',
      reward: 1,
      reason: 'accepted',
      details: { answer: '1, 2, 3', score: 1 },
    });
    expect(await score('\\boxed{3, 2, 1}', label())).toMatchObject({ status: 'OK', reward: 0, reason: 'rejected', details: { score: 0.5 } });
  });

  it('applies the threshold to a partial score', async () => {
    expect(await score('\\boxed{3 2 1}', label({ threshold: 0.5 }))).toMatchObject({ reward: 1, details: { score: 0.5 } });
  });

  it('reads the whole final text when asked, and calls f(answer) without params', async () => {
    const l = { checker: 'def verify(answer):\n    return answer == "north"', function: 'verify', extract: 'final_text' };
    expect(await score('<think>hmm</think>\n north \n', l)).toMatchObject({ reward: 1 });
    expect(await score('south', l)).toMatchObject({ reward: 0 });
  });

  it('gives 0 without an answer', async () => {
    expect(await score('I do not know', label())).toMatchObject({ status: 'OK', reward: 0, reason: 'no_answer' });
    expect(await score('<think>\\boxed{1, 2, 3}', label())).toMatchObject({ status: 'OK', reward: 0, reason: 'no_answer' });
  });

  it('gives 0, never an exit, when the checker raises, loops or returns garbage on the answer', async () => {
    const raising = { checker: 'def check(answer):\n    return int(answer) > 3' };
    expect(await score('\\boxed{many}', raising)).toMatchObject({ status: 'OK', reward: 0, reason: 'checker_raised' });
    const looping = { checker: 'def check(answer):\n    while answer:\n        pass' };
    expect(await score('\\boxed{x}', looping)).toMatchObject({ status: 'OK', reward: 0, reason: 'checker_limit', details: { limit: 'time' } });
    const garbage = { checker: 'def check(answer):\n    return "yes"' };
    expect(await score('\\boxed{x}', garbage)).toMatchObject({ status: 'OK', reward: 0, reason: 'checker_bad_return' });
    const outOfRange = { checker: 'def check(answer):\n    return 7' };
    expect(await score('\\boxed{x}', outOfRange)).toMatchObject({ status: 'OK', reward: 0, reason: 'checker_bad_return' });
  });

  it('does not let an answer that attacks the checker pass it', async () => {
    const evaluating = { checker: 'def check(answer):\n    return answer.strip() == str(6 * 7)' };
    expect(await score('\\boxed{__import__("os")._exit(0)}', evaluating)).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('is an INVALID label when the checker does not compile or lacks its function', async () => {
    expect(await score('\\boxed{1}', { checker: 'def check(answer:\n    pass' })).toMatchObject({
      status: 'INVALID',
      reason: expect.stringMatching(/^label\.checker: does not compile: SyntaxError/),
    });
    expect(await score('\\boxed{1}', { checker: 'def other(answer):\n    return True' })).toMatchObject({
      status: 'INVALID',
      reason: 'label.function: no function "check" in label.checker',
    });
    expect(await score('\\boxed{1}', { params: {} })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.checker:/) });
  });

  it('scores a group sharing one checker consistently (compiled once per worker, cached by hash)', async () => {
    const answers = ['1 2 3', '3 2 1', '1 2 3', 'x', '1 2 3', '2 1 3', '1 2 3', '1 2'];
    const outcomes = await Promise.all(answers.map((a) => score(`\\boxed{${a}}`, label())));
    expect(outcomes.map((o) => (o.status === 'OK' ? o.reward : null))).toEqual([1, 0, 1, 0, 1, 0, 1, 0]);
  });
});
