import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JsonObject } from '../../core/json';
import type { Services } from '../../core/verifier';
import { tarOf } from '../../core/tar';
import { BwrapWorkspace, terminalConfigSection } from '../../services/terminal';
import { scoreTerminal, workspaceTar } from './helpers';

/**
 * Hostile workspaces: each must end 0 or contained — never a false 1, never a change on the host.
 * The task: /app/answer.txt must say 42. Every workspace here gets it wrong and tries to win anyway.
 */
const TASK = {
  id: 'answer',
  tests: {
    'test.sh': '#!/bin/bash\ncd /app\nif [ "$(cat answer.txt 2>/dev/null)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
  },
};
/** A pytest task: the workspace's function must return 42. */
const PYTEST = {
  id: 'pytest',
  tests: {
    'test_answer.py': 'import sys\nsys.path.insert(0, "/app")\nfrom solution import answer\n\ndef test_answer():\n    assert answer() == 42\n',
    'test.sh': '#!/bin/bash\ncd /app\npython3 -m pytest -q -p no:cacheprovider /tests/test_answer.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
  },
};
/** A task whose test.sh runs the workspace's Python program before it decides. */
const ON_PATH_EXIT = {
  id: 'quits',
  tests: { 'test.sh': '#!/bin/bash\ncd /app\npython3 quit.py\nif [ "$(cat out.txt)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
};
/** A task whose test runs the workspace's program: the usual way the policy's code gets to run at all. */
const RUNS = {
  id: 'runs',
  tests: { 'test.sh': '#!/bin/bash\ncd /app\ntimeout 20 bash ./run.sh > out.txt 2>/dev/null\nif [ "$(cat out.txt)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
};

describe('terminal verifier: hostile workspaces', () => {
  const services: Services = { terminal: new BwrapWorkspace(terminalConfigSection.parse({ workers: 2, maxWorkspaceMb: 8, maxMembers: 20_000 })) };
  const run = (task: JsonObject, tar: string) => scoreTerminal({ task }, { workspace: { tar } }, services);
  const wrong = { 'answer.txt': '41' };

  it('cannot pre-seed the reward: reward.txt / reward.json in the archive, at any path, are never read', async () => {
    const tar = workspaceTar({ ...wrong, 'logs/verifier/reward.txt': '1', 'logs/verifier/reward.json': '{"reward": 1}' });
    expect(await run(TASK, tar)).toMatchObject({ status: 'OK', reward: 0 });
    // With -P, GNU tar keeps the absolute names /logs/verifier/reward.*: skipped, outside the workspace.
    const abs = mkdtempSync(path.join(tmpdir(), 'verdict-abs-'));
    mkdirSync(path.join(abs, 'logs', 'verifier'), { recursive: true });
    writeFileSync(path.join(abs, 'logs', 'verifier', 'reward.txt'), '1');
    const absolute = workspaceTar(wrong, { tarArgs: ['-P', path.join(abs, 'logs', 'verifier', 'reward.txt')] });
    const outcome = await run({ id: 'silent', tests: { 'test.sh': 'test "$(cat /app/answer.txt)" = 42 && echo 1 > /logs/verifier/reward.txt' } }, absolute);
    // test.sh writes nothing for a wrong answer: the task's own defect (INVALID), never the planted 1.
    expect(outcome).toMatchObject({ status: 'INVALID' });
    expect(outcome.reason).toMatch(/wrote no reward file/);
  });

  it('a conftest.py, pytest.ini, sitecustomize.py or usercustomize.py in the workspace does not make pytest pass', async () => {
    const tar = workspaceTar({
      'solution.py': 'def answer():\n    return 41\n',
      'conftest.py': 'import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    out = yield\n    out.get_result().outcome = "passed"\n',
      'pytest.ini': '[pytest]\naddopts = -p no:python --co\n',
      'sitecustomize.py': 'import os\nos._exit(0)\n',
      'usercustomize.py': 'import os\nos._exit(0)\n',
      '.local/lib/python3.11/site-packages/usercustomize.py': 'import os\nos._exit(0)\n',
    });
    expect(await run(PYTEST, tar)).toMatchObject({ status: 'OK', reward: 0 });
    const right = workspaceTar({ 'solution.py': 'def answer():\n    return 42\n' });
    expect(await run(PYTEST, right)).toMatchObject({ reward: 1 });
  });

  it('a test tool configuration planted at / by a whole-filesystem change set does not reach the tests', async () => {
    // pytest looks for its ini-file in /tests, then in /: `addopts = --co` collects and runs nothing (exit 0).
    const conftest = 'import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    out = yield\n    out.get_result().outcome = "passed"\n';
    const plants: Record<string, Record<string, string>> = {
      'pytest.ini': { 'pytest.ini': '[pytest]\naddopts = --co\n' },
      '.pytest.ini': { '.pytest.ini': '[pytest]\naddopts = --co\n' },
      'pyproject.toml': { 'pyproject.toml': '[tool.pytest.ini_options]\naddopts = "--co"\n' },
      'tox.ini': { 'tox.ini': '[pytest]\naddopts = --co\n' },
      'setup.cfg': { 'setup.cfg': '[tool:pytest]\naddopts = --co\n' },
      'conftest.py': { 'pytest.ini': '[pytest]\n', 'conftest.py': conftest },
    };
    for (const [name, files] of Object.entries(plants)) {
      const wrongTar = workspaceTar({ 'app/solution.py': 'def answer():\n    return 41\n', ...files });
      const outcome = await scoreTerminal({ task: PYTEST }, { workspace: { tar: wrongTar, root: '/' } }, services);
      expect([name, outcome]).toMatchObject([name, { status: 'OK', reward: 0 }]);
    }
    // The same plants beside a right answer: left out, the answer still scores.
    const rightTar = workspaceTar({ 'app/solution.py': 'def answer():\n    return 42\n', 'pytest.ini': '[pytest]\naddopts = --co\n' });
    expect(await scoreTerminal({ task: PYTEST }, { workspace: { tar: rightTar, root: '/' } }, services)).toMatchObject({ status: 'OK', reward: 1 });
    // npm reads the nearest package.json: a test.sh running `npm test` in /tests would run the planted script.
    const NPM = { id: 'npm', tests: { 'test.sh': '#!/bin/bash\ncd /tests\nif [ -f /package.json ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' } };
    const npmTar = workspaceTar({ 'package.json': '{"scripts": {"test": "exit 0"}}', 'app/x': '' });
    expect(await scoreTerminal({ task: NPM }, { workspace: { tar: npmTar, root: '/' } }, services)).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('a module named like the environment\'s (pytest.py, json.py) or a dist-info declaring a pytest plugin in the workdir does not reach the tests', async () => {
    // `python3 -m pytest` and `python3 -c` put the working directory (the workdir) first on sys.path.
    const FILE = {
      id: 'file',
      tests: {
        'test_out.py': 'import json\n\ndef test_out():\n    assert json.load(open("/app/out.json"))["answer"] == 42\n',
        'test.sh': '#!/bin/bash\ncd /app\npython3 -m pytest -q -p no:cacheprovider /tests/test_out.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
      },
    };
    const INLINE = {
      id: 'inline',
      tests: { 'test.sh': '#!/bin/bash\ncd /app\nif python3 -c "import json, sys; sys.exit(json.load(open(\'out.json\'))[\'answer\'] != 42)"; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
    };
    const passAll = 'import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    out = yield\n    out.get_result().outcome = "passed"\n';
    const exit0 = 'import os\nos._exit(0)\n';
    const plants: Array<[string, JsonObject, Record<string, string>]> = [
      ['pytest.py', FILE, { 'pytest.py': exit0 }],
      ['pytest/', FILE, { 'pytest/__init__.py': exit0, 'pytest/__main__.py': exit0 }],
      ['json.py under pytest', FILE, { 'json.py': 'def load(f):\n    return {"answer": 42}\n' }],
      ['json.py under python3 -c', INLINE, { 'json.py': 'def load(f):\n    return {"answer": 42}\n' }],
      ['a pytest11 entry point', FILE, { 'passall.py': passAll, 'passall-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: passall\nVersion: 1.0\n', 'passall-1.0.dist-info/entry_points.txt': '[pytest11]\npassall = passall\n' }],
    ];
    for (const [name, task, files] of plants) {
      const outcome = await run(task, workspaceTar({ 'out.json': '{"answer": 41}', ...files }));
      expect([name, outcome]).toMatchObject([name, { status: 'OK', reward: 0 }]);
      // The same plant beside a right answer: the environment's module is imported, the answer scores.
      expect([name, await run(task, workspaceTar({ 'out.json': '{"answer": 42}', ...files }))]).toMatchObject([name, { status: 'OK', reward: 1 }]);
    }
    // A whole-filesystem change set's workdir likewise.
    const changeSet = workspaceTar({ 'app/out.json': '{"answer": 41}', 'app/pytest.py': exit0 });
    expect(await scoreTerminal({ task: FILE }, { workspace: { tar: changeSet, root: '/' } }, services)).toMatchObject({ status: 'OK', reward: 0 });
    // A task whose [verifier] env puts the workdir on PYTHONPATH keeps Verdict's hook before it.
    const withPath = { ...FILE, toml: { verifier: { env: { PYTHONPATH: '/app' } } } };
    expect(await run(withPath, workspaceTar({ 'out.json': '{"answer": 41}', 'pytest.py': exit0 }))).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('bytecode caches and Python start-up hooks in the workspace are left out: a .pyc in place of its source, a sitecustomize.py on test.sh\'s PYTHONPATH', async () => {
    // The tests read the source (no literal answer in it) and run it: a .pyc stamped with the source's size and time would run instead.
    const SOURCE = {
      id: 'source',
      tests: { 'test.sh': '#!/bin/bash\ncd /app\nif grep -q 42 solution.py; then echo 0 > /logs/verifier/reward.txt; exit 0; fi\nif [ "$(python3 -c "from solution import answer; print(answer())")" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
    };
    const withBytecode = (source: string) =>
      workspaceTar({ 'solution.py': source }, {
        prepare: (dir) => {
          // A source of the same size and time that returns 6 * 7, compiled to the cache of the one shipped.
          const other = mkdtempSync(path.join(tmpdir(), 'verdict-pyc-'));
          writeFileSync(path.join(other, 'solution.py'), 'def answer():\n    return 6 * 7 + 0\n');
          const when = new Date('2026-01-01T00:00:00Z');
          for (const file of [path.join(other, 'solution.py'), path.join(dir, 'solution.py')]) utimesSync(file, when, when);
          // By the sandbox's python3 (the host's), under the name it looks for.
          const [source, shipped] = [path.join(other, 'solution.py'), path.join(dir, 'solution.py')].map((f) => JSON.stringify(f));
          execFileSync('/usr/bin/python3', ['-c', `import importlib.util, py_compile; py_compile.compile(${source}, cfile=importlib.util.cache_from_source(${shipped}))`]);
        },
      });
    const wrongOutcome = await run(SOURCE, withBytecode('def answer():\n    return 6 * 7 - 1\n'));
    expect(wrongOutcome).toMatchObject({ status: 'OK', reward: 0 });
    expect((wrongOutcome.details as { skipped: string[] }).skipped).toEqual([expect.stringMatching(/^2 members: Python bytecode caches/)]);
    expect(await run(SOURCE, withBytecode('def answer():\n    return 6 * 7 + 0\n'))).toMatchObject({ status: 'OK', reward: 1 });
    // test.sh puts the workdir on PYTHONPATH, where `site` would find the workspace's start-up hook first.
    const ON_PATH = {
      id: 'on-path',
      tests: {
        'test_out.py': 'def test_out():\n    assert open("/app/out.txt").read().strip() == "42"\n',
        'test.sh': '#!/bin/bash\ncd /app\nPYTHONPATH=/app python3 -m pytest -q -p no:cacheprovider /tests/test_out.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
      },
    };
    for (const hook of ['sitecustomize.py', 'usercustomize.py', 'lib/sitecustomize.py']) {
      expect([hook, await run(ON_PATH, workspaceTar({ 'out.txt': '41', [hook]: 'import os\nos._exit(0)\n' }))]).toMatchObject([hook, { status: 'OK', reward: 0 }]);
    }
    expect(await run(ON_PATH, workspaceTar({ 'out.txt': '42', 'sitecustomize.py': 'import os\nos._exit(1)\n' }))).toMatchObject({ status: 'OK', reward: 1 });
  });

  it('a test.sh that sets PYTHONPATH itself (dropping Verdict\'s folder) still gets the hook: a pytest.py, json.py or _distutils_hack.py in the workdir is not imported', async () => {
    const OWN_PATH = {
      id: 'own-path',
      tests: {
        'test_out.py': 'import json\n\ndef test_out():\n    assert json.load(open("/app/out.json"))["answer"] == 42\n',
        'test.sh': '#!/bin/bash\ncd /app\nexport PYTHONPATH=/app\npython3 -m pytest -q -p no:cacheprovider /tests/test_out.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
      },
    };
    const exit0 = 'import os\nos._exit(0)\n';
    // _distutils_hack: what setuptools' distutils-precedence.pth imports at every start, before any sitecustomize.
    for (const [name, text] of [['pytest.py', exit0], ['json.py', 'def load(f):\n    return {"answer": 42}\n'], ['_distutils_hack.py', exit0]] as const) {
      expect([name, await run(OWN_PATH, workspaceTar({ 'out.json': '{"answer": 41}', [name]: text }))]).toMatchObject([name, { status: 'OK', reward: 0 }]);
    }
    expect(await run(OWN_PATH, workspaceTar({ 'out.json': '{"answer": 42}' }))).toMatchObject({ status: 'OK', reward: 1 });
    // Keeping Verdict's folder after the workdir (`PYTHONPATH=/app:$PYTHONPATH`) was a 1 for _distutils_hack.py
    // (found 2026-12-07): a .pth's import runs before any sitecustomize.
    const KEEPS = { id: 'keeps-path', tests: { ...OWN_PATH.tests, 'test.sh': OWN_PATH.tests['test.sh'].replace('PYTHONPATH=/app', 'PYTHONPATH=/app:$PYTHONPATH') } };
    expect(await run(KEEPS, workspaceTar({ 'out.json': '{"answer": 41}', '_distutils_hack.py': exit0 }))).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('a workspace module that ends pytest\'s own process (os._exit(0) on import or in a test) is 0 tests_exited_early, not the exit code it forged', async () => {
    for (const solution of ['import os\nos._exit(0)\n', 'import os\ndef answer():\n    os._exit(0)\n']) {
      expect([solution, await run(PYTEST, workspaceTar({ 'solution.py': solution }))]).toMatchObject([solution, { status: 'OK', reward: 0, reason: 'tests_exited_early' }]);
    }
    // The record's pipe flooded by a program test.sh runs first, so that pytest's start cannot be written:
    // pytest fails rather than blocks, and the run is the same 0.
    const FLOODS = { id: 'floods', tests: { ...PYTEST.tests, 'test.sh': PYTEST.tests['test.sh'].replace('cd /app\n', 'cd /app\npython3 flood.py\n') } };
    const flood = 'import os\nos.set_blocking(8, False)\ntry:\n    while True:\n        os.write(8, b"x" * 4096)\nexcept OSError:\n    pass\n';
    expect(await run(FLOODS, workspaceTar({ 'flood.py': flood, 'solution.py': 'import os\nos._exit(0)\n' }))).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_exited_early' });
    // A solved episode under the test.sh shapes real tasks use: pytest run several times, `|| true`,
    // `--version` first, a failing run before the deciding one, pytest as a subprocess of a test.
    const right = workspaceTar({ 'solution.py': 'def answer():\n    return 42\n' });
    const shapes = {
      'test_answer.py': PYTEST.tests['test_answer.py'],
      'test_sub.py': 'import subprocess, sys\n\ndef test_nested():\n    assert subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "/tests/test_answer.py"]).returncode == 0\n',
      'test.sh': '#!/bin/bash\ncd /app\npython3 -m pytest --version\npython3 -m pytest -q -p no:cacheprovider /tests/test_answer.py -k nothing || true\npython3 -m pytest -q -p no:cacheprovider /tests/test_sub.py\nif python3 -m pytest -q -p no:cacheprovider /tests/test_answer.py; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
    };
    expect(await run({ id: 'shapes', tests: shapes }, right)).toMatchObject({ status: 'OK', reward: 1 });
    // The record is pytest's alone: a workspace program that exits at once under plain python is no run cut short.
    expect(await run(ON_PATH_EXIT, workspaceTar({ 'out.txt': '42', 'quit.py': 'import os\nos._exit(0)\n' }))).toMatchObject({ status: 'OK', reward: 1 });
  });

  it('shadowing bash, python3 or pytest inside the workspace changes nothing: PATH has no workspace folder', async () => {
    const fake = { content: '#!/bin/sh\necho 1 > /logs/verifier/reward.txt\nexit 0\n', mode: 0o755 };
    const tar = workspaceTar({ ...wrong, bash: fake, python3: fake, pytest: fake, 'bin/bash': fake, 'bin/python3': fake, 'bin/pytest': fake, 'usr/bin/python3': fake });
    expect(await run({ id: 'py', tests: { 'test.sh': 'cd /app\npython3 -c "print(open(\'answer.txt\').read() == \'42\')" | grep -q True && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt' } }, tar)).toMatchObject({ reward: 0 });
  });

  it('a process left running to rewrite the reward after test.sh voids the run (0), and one that kills the runner too', async () => {
    const daemon = workspaceTar({ 'run.sh': '(while true; do echo 1 > /logs/verifier/reward.txt 2>/dev/null; sleep 0.01; done) &\necho 41\n' });
    expect(await run(RUNS, daemon)).toMatchObject({ status: 'OK', reward: 0, reason: 'leftover_processes' });
    const killer = workspaceTar({ 'run.sh': 'echo 1 > /logs/verifier/reward.txt\nkill -9 0\n' });
    // Under timeout (its own process group) test.sh survives and writes its 0; run directly, it dies.
    expect(await run(RUNS, killer)).toMatchObject({ status: 'OK', reward: 0 });
    const direct = { id: 'direct', tests: { 'test.sh': '#!/bin/bash\ncd /app\nbash ./run.sh > out.txt\nif [ "$(cat out.txt)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' } };
    expect(await run(direct, killer)).toMatchObject({ status: 'OK', reward: 0, reason: 'runner_killed' });
    const outer = workspaceTar({ 'run.sh': 'kill -9 -1 2>/dev/null; kill -9 1 2>/dev/null; echo 1 > /logs/verifier/reward.txt; echo 42\n' });
    const outcome = await run(RUNS, outer);
    expect(outcome.status).toBe('OK');
    if (outcome.status === 'OK') expect(outcome.reward).toBe(0);
  });

  it('cannot beat the README\'s test.sh with reward.json, a folder, fifo or read-only file at reward.txt, test.sh\'s limits lowered, or a stopped test.sh', async () => {
    // The program writes reward.json {"reward": 1}, which Harbor reads first; test.sh writes reward.txt 0 last.
    const json = workspaceTar({ 'run.sh': 'echo \'{"reward": 1}\' > /logs/verifier/reward.json\necho 41\n' });
    expect(await run(RUNS, json)).toMatchObject({ status: 'OK', reward: 0, reason: 'unexpected_reward_json' });
    // A task that writes reward.json itself, last: the program's reward.txt 1 disagrees with it.
    const JSON_TASK = { id: 'json', tests: { 'test.sh': '#!/bin/bash\ncd /app\ntimeout 20 bash ./run.sh > out.txt 2>/dev/null\nif [ "$(cat out.txt)" = 42 ]; then r=1; else r=0; fi\necho "{\\"reward\\": $r}" > /logs/verifier/reward.json\n' } };
    const txt = workspaceTar({ 'run.sh': 'echo 1 > /logs/verifier/reward.txt\necho 41\n' });
    expect(await run(JSON_TASK, txt)).toMatchObject({ status: 'OK', reward: 0, reason: 'conflicting_rewards' });
    expect(await run(JSON_TASK, workspaceTar({ 'run.sh': 'echo 42\n' }))).toMatchObject({ status: 'OK', reward: 1 });
    // A folder where test.sh writes its reward: the workspace's doing, 0 (not the dataset's INVALID).
    const folder = workspaceTar({ 'run.sh': 'mkdir /logs/verifier/reward.txt\necho 41\n' });
    expect(await run(RUNS, folder)).toMatchObject({ status: 'OK', reward: 0, reason: 'reward_file_not_regular' });
    // A forged 1 made read-only: test.sh's own `echo 0 >` fails ("Permission denied"), the 1 stays.
    const readOnly = workspaceTar({ 'run.sh': 'echo 1 > /logs/verifier/reward.txt\nchmod 444 /logs/verifier/reward.txt\necho 41\n' });
    expect(await run(RUNS, readOnly)).toMatchObject({ status: 'OK', reward: 0, reason: 'reward_file_not_regular' });
    // A forged 1, then test.sh's open-file limit lowered (prlimit) so that its `echo 0 >` fails: refused.
    const limits = workspaceTar({ 'run.sh': 'echo 1 > /logs/verifier/reward.txt\nprlimit --pid $(awk \'{print $4}\' /proc/$PPID/stat) --nofile=3:3\necho 41\n' });
    expect(await run(RUNS, limits)).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
    // A fifo there blocks test.sh's write until its wall time: still the workspace's doing, 0.
    const fifo = workspaceTar({ 'run.sh': 'mkfifo /logs/verifier/reward.txt\necho 41\n' });
    expect(await run({ ...RUNS, toml: { verifier: { timeout_sec: 2 } } }, fifo)).toMatchObject({ status: 'OK', reward: 0, reason: 'reward_file_not_regular' });
    // The program stops test.sh (its grandparent, past timeout): 0, never a wall-time ABORTED.
    const stop = workspaceTar({ 'run.sh': 'kill -STOP $(awk \'{print $4}\' /proc/$PPID/stat)\necho 41\n' });
    expect(await run(RUNS, stop)).toMatchObject({ status: 'OK', reward: 0 });
  });

  // Landlock (Linux ≥ 5.13, when the kernel enables it) is what keeps /proc/<pid>/mem closed.
  const landlock = (() => {
    const dir = mkdtempSync(path.join(tmpdir(), 'verdict-landlock-'));
    writeFileSync(path.join(dir, 'abi.c'), '#include <linux/landlock.h>\n#include <sys/syscall.h>\n#include <unistd.h>\n#include <stdio.h>\nint main(void){printf("%ld", syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION));return 0;}\n');
    try {
      execFileSync('cc', ['-o', path.join(dir, 'abi'), path.join(dir, 'abi.c')]);
      return Number(execFileSync(path.join(dir, 'abi'), { encoding: 'utf8' })) >= 1;
    } catch {
      return false;
    }
  })();
  (landlock ? it : it.skip)('a program test.sh runs cannot open test.sh\'s memory for writing (/proc/<pid>/mem)', async () => {
    const mem = workspaceTar({ 'run.sh': 'python3 -c "import os\ntry:\n  open(\'/proc/%d/mem\' % int(open(\'/proc/%d/stat\' % os.getppid()).read().split()[3]), \'r+b\'); print(42)\nexcept OSError: print(41)"\n' });
    expect(await run(RUNS, mem)).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('path traversal and symlinks out of the root are skipped, and nothing is written on the host', async () => {
    const victim = mkdtempSync(path.join(tmpdir(), 'verdict-victim-'));
    const tar = workspaceTar(
      { ...wrong, escape: { symlink: victim }, 'etc-link': { symlink: '/etc/passwd' }, 'inside-link': { symlink: 'answer.txt' } },
      {
        // A member written *through* the symlink: GNU tar stores it under the link's name.
        prepare: (dir) => writeFileSync(path.join(dir, 'pwned'), 'owned'),
        tarArgs: ['--transform', 's,^\\./pwned$,./escape/pwned,', '--transform', 's,^\\./answer\\.txt$,../../answer.txt,S'],
      },
    );
    const outcome = await run(TASK, tar);
    expect(outcome).toMatchObject({ status: 'OK', reward: 0 });
    expect(existsSync(path.join(victim, 'pwned'))).toBe(false);
    const skipped = (outcome.details as { skipped?: string[] }).skipped ?? [];
    expect(skipped.some((s) => s.startsWith('escape: symlink out'))).toBe(true);
    expect(skipped.some((s) => s.startsWith('etc-link: symlink out'))).toBe(true);
  });

  it('bounds expansion by counted bytes: a highly compressible member and a 10 GB sparse one end 0', async () => {
    const zeros = workspaceTar(wrong, { gzip: true, prepare: (dir) => writeFileSync(path.join(dir, 'zeros.bin'), Buffer.alloc(64 << 20)) });
    expect(Buffer.from(zeros, 'base64').length).toBeLessThan(1 << 20);
    expect(await run(TASK, zeros)).toMatchObject({ status: 'OK', reward: 0, reason: 'workspace_too_large' });
    const sparse = workspaceTar(wrong, { prepare: (dir) => execFileSync('truncate', ['-s', '10G', path.join(dir, 'huge.img')]), tarArgs: ['--sparse'] });
    const outcome = await run(TASK, sparse);
    expect(outcome).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('100,000 tiny files end 0 (too many members), setuid bits are dropped, device nodes are not unpacked', async () => {
    const many = workspaceTar(wrong, {
      prepare: (dir) => {
        mkdirSync(path.join(dir, 'many'));
        for (let i = 0; i < 100_000; i++) writeFileSync(path.join(dir, 'many', String(i)), '');
      },
    });
    expect(await run(TASK, many)).toMatchObject({ status: 'OK', reward: 0, reason: 'workspace_too_large' });
    const special = workspaceTar(
      { 'answer.txt': '42', tool: { content: '#!/bin/sh\nid -u\n', mode: 0o4755 } },
      { prepare: (dir) => execFileSync('mknod', [path.join(dir, 'null2'), 'c', '1', '3']) },
    );
    const check = { id: 'modes', tests: { 'test.sh': 'cd /app\nif [ -u tool ] || [ -e null2 ]; then echo 0 > /logs/verifier/reward.txt; else echo 1 > /logs/verifier/reward.txt; fi' } };
    const outcome = await run(check, special);
    expect(outcome).toMatchObject({ status: 'OK', reward: 1 });
    expect((outcome.details as { skipped: string[] }).skipped).toEqual(['null2: character device not unpacked']);
  });

  it('a workspace that fills the disk ends 0', async () => {
    const filler = workspaceTar({ 'run.sh': 'cat /dev/zero > fill.bin 2>/dev/null; echo 41\n' });
    const outcome = await run({ ...RUNS, toml: { environment: { storage_mb: 16 } } }, filler);
    expect(outcome).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('members the kernel would refuse (a name past 255 bytes, an empty link target) are skipped: never an ABORTED the workspace caused', async () => {
    const long = 'n'.repeat(300);
    const withLongName = workspaceTar({ ...wrong, short: 'x' }, { tarArgs: ['--transform', `s,^\\./short$,./${long},`] });
    const first = await run(TASK, withLongName);
    expect(first).toMatchObject({ status: 'OK', reward: 0 });
    expect((first.details as { skipped: string[] }).skipped).toEqual([expect.stringMatching(/^n+…: name too long$/)]);
    const emptyLink = Buffer.from(tarOf([{ name: 'answer.txt', data: '41' }, { name: 'sub', type: 'dir' }, { name: 'sub/link', type: 'symlink', linkname: '' }])).toString('base64');
    const second = await run(TASK, emptyLink);
    expect(second).toMatchObject({ status: 'OK', reward: 0 });
    expect((second.details as { skipped: string[] }).skipped).toEqual(['sub/link: symlink with no target']);
  });

  it('leaves nothing of a run on the host', async () => {
    const before = leftovers();
    await run(TASK, workspaceTar(wrong));
    expect(leftovers()).toEqual(before);
  });
});

/** What a run could leave in the temporary folder: Verdict's own names there. */
function leftovers(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith('verdict-terminal-'));
}
