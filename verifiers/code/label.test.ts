import { checkAgainst } from '../../core/label';
import { codeLabel } from './label';

const check = (label: unknown) => checkAgainst(codeLabel, label);

describe('the code label', () => {
  it('takes assert tests with an optional entry point and setup, or stdin/stdout pairs', () => {
    expect(check({ mode: 'assert', tests: ['assert f(1) == 2'], fn_name: 'f', setup: 'import math', time_limit_ms: 500 })).toMatchObject({ ok: true });
    expect(check({ mode: 'stdio', tests: [{ stdin: '1\n', stdout: '2\n' }], memory_limit_mb: 64, problem_id: 'p1' })).toMatchObject({ ok: true });
  });

  it('names the modes when the mode is missing or unknown', () => {
    expect(check({ tests: ['assert True'] })).toEqual({ ok: false, error: 'label.mode: required: "assert" or "stdio"' });
    expect(check({ mode: 'unit', tests: ['assert True'] })).toEqual({ ok: false, error: 'label.mode: expected "assert" or "stdio", received "unit"' });
  });

  it('refuses what no run can use: no tests, an empty assert, an entry point that is no identifier, a limit under the floor', () => {
    expect(check({ mode: 'assert', tests: [] })).toMatchObject({ ok: false, error: expect.stringMatching(/^label\.tests: /) });
    expect(check({ mode: 'assert', tests: [''] })).toMatchObject({ ok: false, error: expect.stringMatching(/^label\.tests\[0\]: /) });
    expect(check({ mode: 'assert', tests: ['assert True'], fn_name: 'not-a-name' })).toEqual({ ok: false, error: 'label.fn_name: expected a Python identifier' });
    expect(check({ mode: 'assert', tests: ['assert True'], time_limit_ms: 5 })).toMatchObject({ ok: false, error: expect.stringMatching(/^label\.time_limit_ms: /) });
    expect(check({ mode: 'stdio', tests: [{ stdin: '' }] })).toMatchObject({ ok: false, error: expect.stringMatching(/^label\.tests\[0\]\.stdout: /) });
  });

  it('names a field that belongs to the other mode as unknown', () => {
    expect(check({ mode: 'stdio', tests: [{ stdin: '', stdout: '' }], fn_name: 'f' })).toEqual({ ok: false, error: 'label.fn_name: unknown field' });
  });
});
