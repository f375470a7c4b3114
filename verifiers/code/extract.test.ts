import { code } from '.';
import { lastPythonBlock } from './extract';
import { MAX_TESTS, selectTests, testsSeed } from './subsample';
import type { SandboxPort } from '../../core/ports/sandbox';
import { scoreAsync } from '../../test/pure/score';

describe('code: extraction of the last python block', () => {
  it.each([
    ['```python\nprint(1)\n```', 'print(1)'],
    ['```py\nprint(1)\n```', 'print(1)'],
    ['```Python3\nprint(1)\n```', 'print(1)'],
    ['```PYTHON title="x"\nprint(1)\n```', 'print(1)'],
    ['~~~python\nprint(1)\n~~~', 'print(1)'],
    ['  ```python\n  print(1)\n    x\n  ```', 'print(1)\n  x'],
  ])('reads %j', (text, expected) => {
    expect(lastPythonBlock(text)).toBe(expected);
  });

  it('takes the last python block and ignores other languages and unlabelled fences', () => {
    const text = '```python\nfirst\n```\ntext\n```python\nsecond\n```\n```\nbare\n```\n```js\nno\n```';
    expect(lastPythonBlock(text)).toBe('second');
  });

  it('has no code without a python fence', () => {
    expect(lastPythonBlock('```\nprint(1)\n```')).toBeNull();
    expect(lastPythonBlock('    print(1)\n')).toBeNull();
    expect(lastPythonBlock('no code')).toBeNull();
  });

  it('does not nest fences: a python fence inside a markdown block is content', () => {
    const text = '````markdown\n```python\ninner\n```\n````';
    expect(lastPythonBlock(text)).toBeNull();
  });

  it('lets an unclosed block run to the end (CommonMark)', () => {
    expect(lastPythonBlock('```python\nprint(1)\nprint(2)')).toBe('print(1)\nprint(2)');
  });
});

describe('code: test subsample', () => {
  it('keeps every test up to the limit, in order', () => {
    expect(selectTests(7, () => 'p')).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('chooses the same 50 of 60 for a seed, different ones for another seed, in ascending order', () => {
    const a = selectTests(60, () => 'problem-a');
    expect(a).toHaveLength(MAX_TESTS);
    expect(selectTests(60, () => 'problem-a')).toEqual(a);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
    expect(new Set(a).size).toBe(MAX_TESTS);
    expect(selectTests(60, () => 'problem-b')).not.toEqual(a);
  });

  it('seeds from the tests when the label names no problem', () => {
    expect(testsSeed(['assert f(1) == 1'])).toBe(testsSeed(['assert f(1) == 1']));
    expect(testsSeed(['assert f(1) == 1'])).not.toBe(testsSeed(['assert f(1) == 2']));
  });
});

describe('code: outcomes that need no sandbox run', () => {
  const label = { mode: 'assert', tests: ['assert f(1) == 1'], fn_name: 'f' };
  // Configured but never reached: a response without code is the policy's 0 before any run.
  const notReached = (): never => {
    throw new Error('the sandbox was called');
  };
  const sandbox: SandboxPort = { runAsserts: notReached, runStdio: notReached, callFunction: notReached };

  it('scores no code 0 and an unclosed <think> 0', async () => {
    expect(await scoreAsync(code, 'just prose', label, { sandbox })).toMatchObject({ status: 'OK', reward: 0, reason: 'no_code' });
    expect(await scoreAsync(code, '<think>```python\ndef f(x): return x\n```', label, { sandbox })).toMatchObject({
      status: 'OK',
      reward: 0,
      reason: 'no_code',
    });
    expect(await scoreAsync(code, '<think>```python\ndef f(x): return x\n```</think> done', label, { sandbox })).toMatchObject({
      reason: 'no_code',
    });
  });

  it('is ABORTED, not 0, when the sandbox is not configured, whatever the response (code requires it)', async () => {
    for (const response of ['```python\ndef f(x): return x\n```', 'just prose']) {
      expect(await scoreAsync(code, response, label, {})).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable', details: { service: 'sandbox' } });
    }
  });

  it.each([
    [{ tests: ['assert 1'] }, 'label.mode'],
    [{ mode: 'assert', tests: [] }, 'label.tests'],
    [{ mode: 'stdio', tests: [{ stdin: '1' }] }, 'label.tests[0].stdout'],
    [{ mode: 'assert', tests: ['assert 1'], fn_name: 'not a name' }, 'label.fn_name'],
    [{ mode: 'assert', tests: ['assert 1'], extra: 1 }, 'label.extra'],
  ])('names the field of a bad label: %j', async (bad, field) => {
    const outcome = await scoreAsync(code, '```python\nx = 1\n```', bad, {});
    expect(outcome.status).toBe('INVALID');
    expect(outcome.reason.startsWith(`${field}:`)).toBe(true);
  });
});
