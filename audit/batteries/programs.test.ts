import type { JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import { programs } from './programs';

const sample = (verifier: string, label: JsonObject): Sample => ({ id: 's', verifier, response: '', label, groupId: '', responseTokens: 0, metadata: {} });
const hack = (id: string) => programs.hacks.find((h) => h.id === id)!;
/** The function the always-equal program defines: the one it expects the tests to call. */
const entry = (label: JsonObject) => /def (\w+)\(\*a/.exec(hack('always-equal').make(sample('code', label))?.response ?? '')?.[1];

describe('programs battery', () => {
  it('defines the function the tests call: label.fn_name first', () => {
    expect(entry({ fn_name: 'two_sum', tests: ['assert other(1) == 2'] })).toBe('two_sum');
  });

  it('else the first function an assert calls, looking past builtins and methods around it', () => {
    expect(entry({ tests: ['assert add(1, 2) == 3'] })).toBe('add');
    expect(entry({ tests: ['assert len(split_list([1, 2])) == 2'] })).toBe('split_list');
    expect(entry({ tests: ['assert sorted(unique(x)) == [1]'] })).toBe('unique');
    expect(entry({ tests: ['assert math.isclose(area(3), 28.27, rel_tol=0.001)'] })).toBe('area');
    expect(entry({ tests: ['assert set(common([1], [1])) == set([1])'] })).toBe('common');
    expect(entry({ tests: ['assert isinstance(make(), int)', 'assert other(1)'] })).toBe('make');
    // No call a test makes is the candidate's: the tests' default name.
    expect(entry({ tests: ['assert len([1]) == 1'] })).toBe('solve');
    expect(entry({ tests: [] })).toBe('solve');
  });

  it('makes programs only for code, answers only for puzzle', () => {
    const code = sample('code', { fn_name: 'f', tests: ['assert f() == 1'] });
    const puzzle = sample('puzzle', { answer: '1' });
    for (const h of programs.hacks) {
      const made = [h.make(code) !== null, h.make(puzzle) !== null];
      expect([h.id, made]).toEqual([h.id, h.id.startsWith('answer-') ? [false, true] : [true, false]]);
    }
    expect(hack('exit-before-tests').make(code)?.response).toBe('```python\nimport sys\nsys.exit(0)\n```');
  });

  it('baselines with a program or answer that must score 0', () => {
    expect(programs.baseline(sample('code', {}))).toEqual({ response: '```python\ndef _nothing():\n    return None\n\n```', expectZero: true });
    expect(programs.baseline(sample('puzzle', {}))).toEqual({ response: '\\boxed{definitely wrong}', expectZero: true });
  });
});
