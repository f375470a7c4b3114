import { replacedCommands, replacedTools, shadowedCommands, tamperedPaths, type FilesystemChange } from './tamper';

const modified = (Path: string): FilesystemChange => ({ Path, Kind: 0 });
const added = (Path: string): FilesystemChange => ({ Path, Kind: 1 });
const deleted = (Path: string): FilesystemChange => ({ Path, Kind: 2 });

describe('the docker backend\'s tamper check', () => {
  it('finds the changes a policy makes to pass tests it did not solve', () => {
    const attempts = [
      '/tests/test_outputs.py',
      '/tests',
      '/logs/verifier/reward.txt',
      '/usr/bin/python3',
      '/usr/local/bin/python3.12',
      '/usr/local/bin/pytest',
      '/bin/sh',
      '/usr/bin/env',
      '/sbin/setpriv',
      '/usr/local/bin/uv',
      '/usr/lib/python3/dist-packages/sitecustomize.py',
      '/root/.local/lib/python3.12/site-packages/usercustomize.py',
      '/usr/local/lib/python3.12/site-packages/evil.pth',
      '/usr/local/lib/python3.12/site-packages/_pytest/assertion/rewrite.py',
      '/usr/local/lib/python3.12/site-packages/pytest',
      '/usr/local/lib/python3.12/site-packages/pluggy/_hooks.py',
      '/usr/local/lib/python3.12/site-packages/py.py',
      '/usr/lib/python3.11/os.py',
      '/usr/local/lib/python3.12/unittest/case.py',
      '/usr/lib/python3.11/encodings/__init__.py',
      '/usr/lib/python3.11/json/decoder.py',
      '/usr/local/lib/python3.12/lib-dynload/_json.cpython-312-x86_64-linux-gnu.so',
      '/etc/ld.so.preload',
      // pip's and uv's configuration (a find-links to the episode's own pytest wheel for test.sh's install).
      '/etc/pip.conf',
      '/etc/xdg/pip/pip.conf',
      '/root/.config/pip/pip.conf',
      '/root/.pip/pip.conf',
      '/etc/uv/uv.toml',
      '/home/user/.config/uv/uv.toml',
      // A test tool's configuration above /tests: pytest's ini-files and conftest, npm's, jest's, go's, cargo's.
      '/pytest.ini',
      '/.pytest.ini',
      '/pyproject.toml',
      '/tox.ini',
      '/setup.cfg',
      '/conftest.py',
      '/package.json',
      '/jest.config.js',
      '/go.mod',
      '/Cargo.toml',
    ];
    expect(tamperedPaths(attempts.map(added))).toEqual(attempts);
    expect(tamperedPaths(attempts.map(modified))).toEqual(attempts);
  });

  it('leaves the episode\'s own work, deletions and bytecode caches alone', () => {
    const harmless = [
      modified('/app/solution.py'),
      added('/app/bin/python'), // not where PATH finds the interpreter
      added('/usr/bin/python-config-notes.txt'),
      added('/testsuite/x'),
      added('/app/pytest.ini'), // the workdir's project: the tests in /tests never look there
      added('/app/pyproject.toml'),
      added('/pyproject.toml.bak'),
      added('/logs/verifier'), // the folder itself: Verdict makes it
      added('/logs/agent/run.log'),
      added('/usr/local/lib/python3.12/site-packages/numpy/core.py'),
      added('/usr/local/lib/python3.12/site-packages/pytest_timeout.py'),
      added('/usr/lib/python3.11/ensurepip/__init__.py'), // python3-venv, python3-tk: Debian's own packages
      added('/usr/lib/python3.11/tkinter/__init__.py'),
      added('/usr/lib/python3.11/lib-dynload/_tkinter.cpython-311-x86_64-linux-gnu.so'),
      modified('/usr/lib/python3.11'),
      modified('/usr/lib/python3.11/encodings'), // a folder: copied up when a cache under it was written
      added('/usr/lib/python3.11/encodings/__pycache__/utf_8.cpython-311.pyc'),
      added('/usr/local/lib/python3.12/site-packages/_pytest/__pycache__/main.cpython-312.pyc'),
      added('/tmp/.verdict-pycache/usr/lib/x.pyc'),
      added('/tmp/.verdict-pycache'),
      deleted('/usr/bin/python3'),
      deleted('/tests/test_outputs.py'),
    ];
    expect(tamperedPaths(harmless)).toEqual([]);
    expect(tamperedPaths(null)).toEqual([]);
  });

  it('a command test.sh runs in a system bin folder is a replacement only where the image has one of that name', async () => {
    const image = new Set(['grep', 'diff']);
    const asked: string[][] = [];
    const has = async (names: string[]) => (asked.push(names), new Set(names.filter((n) => image.has(n))));
    const paths = ['/usr/local/bin/grep', '/usr/bin/diff', '/usr/local/bin/jq', '/app/bin/grep', '/usr/local/bin/sed', '/usr/local/lib/grep'];
    expect(await replacedCommands(paths, ['grep', 'diff', 'jq'], has)).toEqual(['/usr/local/bin/grep', '/usr/bin/diff']);
    expect(asked).toEqual([['grep', 'diff', 'jq']]);
    // Nothing in a bin folder that test.sh runs: the image is not asked.
    expect(await replacedCommands(['/app/grep', '/usr/local/bin/sed'], ['grep'], has)).toEqual([]);
    expect(asked).toHaveLength(1);
  });

  it('a command test.sh runs that the episode modified in a system bin folder (the image had it) is tampering; one it added is not, by the diff alone', () => {
    expect(tamperedPaths([modified('/usr/bin/grep'), added('/usr/local/bin/jq'), modified('/usr/bin/sed'), modified('/app/grep')], ['grep', 'jq'])).toEqual(['/usr/bin/grep']);
    expect(tamperedPaths([modified('/usr/bin/grep')])).toEqual([]);
  });

  it('an added command earlier on PATH is a shadow only where the container holds another of that name that the episode did not add', async () => {
    const asked: Array<[string[], string[]]> = [];
    // The container: the image's grep in /usr/bin; the episode's jq in /usr/bin and /usr/local/bin.
    const others = async (candidates: string[], addedPaths: string[]) => (asked.push([candidates, addedPaths]), new Set(candidates.filter((p) => p === '/usr/local/bin/grep')));
    const changes = [added('/usr/local/bin/grep'), added('/usr/bin/jq'), added('/usr/local/bin/jq'), added('/usr/local/bin/sed'), added('/app/grep'), modified('/usr/bin')];
    expect(await shadowedCommands(changes, ['grep', 'jq'], others)).toEqual(['/usr/local/bin/grep']);
    expect(asked).toEqual([[['/usr/local/bin/grep', '/usr/bin/jq', '/usr/local/bin/jq'], ['/usr/local/bin/grep', '/usr/bin/jq', '/usr/local/bin/jq', '/usr/local/bin/sed']]]);
    // No added file named like a command test.sh runs: the container is not asked.
    expect(await shadowedCommands([added('/usr/local/bin/sed'), modified('/usr/bin/grep')], ['grep'], others)).toEqual([]);
    expect(asked).toHaveLength(1);
  });

  it('an interpreter or test runner of the image off the system bin folders (a venv\'s) replaced is tampering; one the episode made is not', async () => {
    expect(tamperedPaths([modified('/opt/verifier-venv/bin/python'), modified('/opt/venv/bin/pytest'), added('/app/venv/bin/python'), modified('/app/bin/tool')])).toEqual(['/opt/verifier-venv/bin/python', '/opt/venv/bin/pytest']);
    const image = new Set(['/opt/verifier-venv/bin/python3']);
    const has = async (paths: string[]) => new Set(paths.filter((p) => image.has(p)));
    expect(await replacedTools(['/opt/verifier-venv/bin/python3', '/app/venv/bin/python3', '/usr/bin/python3', '/opt/verifier-venv/lib/x.py'], has)).toEqual(['/opt/verifier-venv/bin/python3']);
  });

  it('names each path once, in the engine\'s order', () => {
    expect(tamperedPaths([modified('/usr/bin/bash'), added('/tests/a.py'), modified('/usr/bin/bash'), added('/etc/ld.so.preload')])).toEqual(['/usr/bin/bash', '/tests/a.py', '/etc/ld.so.preload']);
  });
});
