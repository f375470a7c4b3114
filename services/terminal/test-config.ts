/**
 * Files at `/` that the tools a test.sh runs in or on /tests read as their own configuration: `/` is
 * the one folder above /tests, and these tools look for their configuration upward. pytest takes the
 * first of pytest.ini, .pytest.ini, pyproject.toml, tox.ini or setup.cfg in /tests, else in `/`,
 * makes `/` its rootdir when one is there, and then loads `/conftest.py`; npm and jest read the
 * nearest package.json (and jest its jest.config.*), go the nearest go.mod or go.work, cargo the
 * nearest Cargo.toml. An episode that plants one reconfigures the hidden tests — a pytest.ini with
 * `addopts = --co` collects the tests and runs none, and pytest exits 0 — so a workspace's file
 * there is never the tests' (the bwrap backend leaves it out; the docker backend's tamper check
 * names it). Found by a whole-filesystem change set that scored 1 for a wrong answer (2026-12-07).
 */
export const ROOT_TEST_CONFIG: ReadonlySet<string> = new Set([
  'pytest.ini',
  '.pytest.ini',
  'pyproject.toml',
  'tox.ini',
  'setup.cfg',
  'conftest.py',
  'package.json',
  'jest.config.js',
  'jest.config.cjs',
  'jest.config.mjs',
  'jest.config.ts',
  'jest.config.json',
  'go.mod',
  'go.work',
  'Cargo.toml',
]);

/**
 * Python's start-up hooks and bytecode caches in the episode's files, which the tests' Python would
 * run in place of what the workspace shows: `sitecustomize.py` / `usercustomize.py` (`site` imports
 * them from the first folder on sys.path that has one — the workdir, when test.sh sets
 * `PYTHONPATH=/app`), and `__pycache__/` (a `.pyc` stamped with its source's size and time runs in
 * place of that source: a `solution.py` the tests read as right, run as something else). None is
 * part of an answer — Python compiles the sources again — so the bwrap backend leaves them out (the
 * docker backend's tamper check names a start-up hook; its tests read no `__pycache__`). Found
 * 2026-12-07: both scored 1 for a wrong answer. Returns why a path is left out, or null.
 */
export function pythonLeftOut(rel: string): string | null {
  const parts = rel.split('/');
  if (parts.slice(0, -1).includes('__pycache__') || parts[parts.length - 1] === '__pycache__') return 'Python bytecode caches (__pycache__), which would run in place of their sources';
  if (/^(site|user)customize\.py$/.test(parts[parts.length - 1]!)) return 'Python start-up hooks (sitecustomize.py, usercustomize.py)';
  return null;
}
