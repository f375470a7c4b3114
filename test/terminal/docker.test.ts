import type { JsonObject } from '../../core/json';
import { createServices } from '../../services/bootstrap';
import { ConfigError, parseConfig } from '../../services/config';
import { DockerWorkspace } from '../../services/terminal/docker';
import { terminalConfigSection } from '../../services/terminal';
import { describeWorkspaceBackend } from './contract';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier } from '../../core/verifier';
import { terminal } from '../../verifiers/terminal';
import { scoreTerminal, workspaceTar } from './helpers';
import { BASE_IMAGE, SuiteEngine } from './engine';

const engine = SuiteEngine.forThisFile();
const socket = engine.socket;
/** Every port of this file: closed before the engine stops, so no removal left off the result path is cut short. */
const tracked = (port: DockerWorkspace): DockerWorkspace => engine.track(port);

/** The docker backend in fresh mode on the real engine: tasks without an image of their own run in the base image. */
export function dockerConfig(extra: Record<string, unknown> = {}) {
  return terminalConfigSection.parse({
    backend: 'docker',
    maxWorkspaceMb: 2,
    docker: { endpoints: { local: { socketPath: socket, maxConcurrency: 2 } }, defaultImage: BASE_IMAGE, ...extra },
  });
}

describeWorkspaceBackend('docker (fresh containers, podman)', () => tracked(new DockerWorkspace(dockerConfig())), { diskFull: false, rootTests: true });

/** The README's test.sh (the workspace's program first, under timeout; reward.txt last): the holes found in the bwrap backend, on the docker one. */
const RUNS = {
  id: 'runs',
  tests: { 'test.sh': '#!/bin/bash\ncd /app\ntimeout 20 bash ./run.sh > out.txt 2>/dev/null\nif [ "$(cat out.txt)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' },
};

describe('terminal docker backend: the README\'s test.sh cannot be beaten', () => {
  const services = { terminal: tracked(new DockerWorkspace(dockerConfig())) };
  const run = (task: JsonObject, tar: string) => scoreTerminal({ task }, { workspace: { tar } }, services);

  it('by a forged reward.json, a folder at reward.txt or a stopped test.sh: each 0', async () => {
    expect(await run(RUNS, workspaceTar({ 'run.sh': 'echo \'{"reward": 1}\' > /logs/verifier/reward.json\necho 41\n' }))).toMatchObject({ status: 'OK', reward: 0, reason: 'unexpected_reward_json' });
    expect(await run(RUNS, workspaceTar({ 'run.sh': 'mkdir /logs/verifier/reward.txt\necho 41\n' }))).toMatchObject({ status: 'OK', reward: 0, reason: 'reward_file_not_regular' });
    expect(await run(RUNS, workspaceTar({ 'run.sh': 'echo 42\n' }))).toMatchObject({ status: 'OK', reward: 1 });
    // The program stops test.sh (its grandparent, past timeout): seen when the wall time is cut, a 0.
    const stop = workspaceTar({ 'run.sh': 'kill -STOP $(cut -d" " -f4 /proc/$PPID/stat)\necho 41\n' });
    expect(await run({ ...RUNS, toml: { verifier: { timeout_sec: 3 } } }, stop)).toMatchObject({ status: 'OK', reward: 0, reason: 'runner_killed' });
  });
});

describe('terminal docker backend: the workspace\'s modules do not replace the environment\'s', () => {
  const services = { terminal: tracked(new DockerWorkspace(dockerConfig())) };
  // `python3 -m pytest` in the workdir puts it first on sys.path: a pytest.py there would be the test runner.
  const FILE = {
    id: 'file',
    tests: {
      'test_out.py': 'import json\n\ndef test_out():\n    assert json.load(open("/app/out.json"))["answer"] == 42\n',
      'test.sh': '#!/bin/bash\ncd /app\npython3 -m pytest -q -p no:cacheprovider /tests/test_out.py\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
    },
  };
  const plants: Record<string, Record<string, string>> = {
    'pytest.py': { 'pytest.py': 'import os\nos._exit(0)\n' },
    'json.py': { 'json.py': 'def load(f):\n    return {"answer": 42}\n' },
  };

  it('a pytest.py or json.py in the workdir of a fresh container: 0 for a wrong answer, 1 for a right one', async () => {
    for (const [name, files] of Object.entries(plants)) {
      const wrong = await scoreTerminal({ task: FILE }, { workspace: { tar: workspaceTar({ 'out.json': '{"answer": 41}', ...files }) } }, services);
      expect([name, wrong]).toMatchObject([name, { status: 'OK', reward: 0 }]);
    }
    const right = await scoreTerminal({ task: FILE }, { workspace: { tar: workspaceTar({ 'out.json': '{"answer": 42}', ...plants['json.py']! }) } }, services);
    expect(right).toMatchObject({ status: 'OK', reward: 1 });
  });

  it('a test.sh that sets PYTHONPATH=/app itself (dropping Verdict\'s folder) still gets the hook from a .pth: a pytest.py or json.py in the workdir is not imported', async () => {
    const OWN = { id: 'own-path', tests: { ...FILE.tests, 'test.sh': FILE.tests['test.sh'].replace('cd /app\n', 'cd /app\nexport PYTHONPATH=/app\n') } };
    for (const [name, files] of Object.entries(plants)) {
      const wrong = await scoreTerminal({ task: OWN }, { workspace: { tar: workspaceTar({ 'out.json': '{"answer": 41}', ...files }) } }, services);
      expect([name, wrong]).toMatchObject([name, { status: 'OK', reward: 0 }]);
    }
    const right = await scoreTerminal({ task: OWN }, { workspace: { tar: workspaceTar({ 'out.json': '{"answer": 42}', ...plants['json.py']! }) } }, services);
    expect(right).toMatchObject({ status: 'OK', reward: 1 });
  });

  it('a workspace module that ends pytest\'s own process in a test (os._exit(0)) is 0 tests_exited_early in a fresh container; the solved one 1', async () => {
    const IMPORTS = {
      id: 'imports',
      tests: {
        'test_answer.py': 'import sys\nsys.path.insert(0, "/app")\nfrom solution import answer\n\ndef test_answer():\n    assert answer() == 42\n',
        'test.sh': '#!/bin/bash\ncd /app\npython3 -m pytest -q -p no:cacheprovider /tests/test_answer.py || true\nif python3 -m pytest -q -p no:cacheprovider /tests/test_answer.py; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
      },
    };
    const wrong = await scoreTerminal({ task: IMPORTS }, { workspace: { tar: workspaceTar({ 'solution.py': 'import os\ndef answer():\n    os._exit(0)\n' }) } }, services);
    expect(wrong).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_exited_early' });
    const right = await scoreTerminal({ task: IMPORTS }, { workspace: { tar: workspaceTar({ 'solution.py': 'def answer():\n    return 42\n' }) } }, services);
    expect(right).toMatchObject({ status: 'OK', reward: 1 });
  });

  it('a pytest plugin the episode installed is not loaded; one test.sh installs is; a patched standard library package is tampering', async () => {
    const site = 'usr/lib/python3/dist-packages/';
    const passAll = 'import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    out = yield\n    out.get_result().outcome = "passed"\n';
    const plugin = {
      [`${site}passall.py`]: passAll,
      [`${site}passall-1.0.dist-info/METADATA`]: 'Metadata-Version: 2.1\nName: passall\nVersion: 1.0\n',
      [`${site}passall-1.0.dist-info/entry_points.txt`]: '[pytest11]\npassall = passall\n',
    };
    const changeSet = (answer: number, files: Record<string, string>) => ({ workspace: { tar: workspaceTar({ 'app/out.json': `{"answer": ${answer}}`, ...files }), root: '/' } });
    expect(await scoreTerminal({ task: FILE }, changeSet(41, plugin), services)).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
    expect(await scoreTerminal({ task: FILE }, changeSet(42, plugin), services)).toMatchObject({ status: 'OK', reward: 1 });
    // test.sh installs a plugin of its own (an option it passes): it loads.
    const option = 'def pytest_addoption(parser):\n    parser.addoption("--verdict-ok", action="store_true")\n';
    const install = `mkdir -p /${site}okopt-1.0.dist-info\nprintf '${option.replace(/\n/g, '\\n')}' > /${site}okopt.py\nprintf 'Metadata-Version: 2.1\\nName: okopt\\nVersion: 1.0\\n' > /${site}okopt-1.0.dist-info/METADATA\nprintf '[pytest11]\\nokopt = okopt\\n' > /${site}okopt-1.0.dist-info/entry_points.txt\n`;
    const OWN = { id: 'own', tests: { ...FILE.tests, 'test.sh': FILE.tests['test.sh'].replace('cd /app\n', `${install}cd /app\n`).replace('-p no:cacheprovider', '-p no:cacheprovider --verdict-ok') } };
    expect(await scoreTerminal({ task: OWN }, changeSet(42, {}), services)).toMatchObject({ status: 'OK', reward: 1 });
    const patched = await scoreTerminal({ task: FILE }, changeSet(41, { 'usr/lib/python3.11/encodings/__init__.py': 'import os\nos._exit(0)\n' }), services);
    expect(patched).toMatchObject({ status: 'OK', reward: 0, reason: 'environment_tampered' });
  });

  it('a command test.sh runs, replaced or shadowed in a system bin folder of a fresh container, is tampering; a tool the image lacks is the episode\'s', async () => {
    const GREP = { id: 'grep', tests: { 'test.sh': '#!/bin/bash\ncd /app\nif grep -qx 42 answer.txt && tree --version >/dev/null; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' } };
    const yes = { content: '#!/bin/sh\nexit 0\n', mode: 0o755 };
    for (const at of ['usr/local/bin/grep', 'usr/bin/grep']) {
      const outcome = await scoreTerminal({ task: GREP }, { workspace: { tar: workspaceTar({ 'app/answer.txt': '41', [at]: yes }), root: '/' } }, services);
      expect([at, outcome]).toMatchObject([at, { status: 'OK', reward: 0, reason: 'environment_tampered' }]);
    }
    // A command the image does not have, which test.sh runs by path: the episode's tool, not a replacement.
    const TOOL = { id: 'tool', tests: { 'test.sh': '#!/bin/bash\nif [ -x /usr/local/bin/answer-tool ] && [ "$(/usr/local/bin/answer-tool)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' } };
    const tool = { content: '#!/bin/sh\necho 42\n', mode: 0o755 };
    expect(await scoreTerminal({ task: TOOL }, { workspace: { tar: workspaceTar({ 'usr/local/bin/answer-tool': tool }), root: '/' } }, services)).toMatchObject({ status: 'OK', reward: 1 });
    expect(await scoreTerminal({ task: GREP }, { workspace: { tar: workspaceTar({ 'app/answer.txt': '42' }), root: '/' } }, services)).toMatchObject({ status: 'OK', reward: 1 });
  });
});

describe('terminal docker backend: a stopped test run ends at once, not at its wall time', () => {
  const services = { terminal: tracked(new DockerWorkspace(dockerConfig())) };
  // A wall time of 600 s and a cancel after 120: a stop seen only at the wall time throws "cancelled".
  const run = (test: string) => {
    const task = { id: 'stopped', tests: { 'test.sh': test }, toml: { verifier: { timeout_sec: 600 } } };
    const sample = { id: 's', verifier: 'terminal', response: 'done', label: { task }, groupId: '', responseTokens: 0, metadata: { workspace: { tar: workspaceTar({ 'run.sh': 'kill -STOP $$\necho 42\n' }) } } };
    return scoreAsync(terminal as AsyncVerifier, sample, { signal: AbortSignal.timeout(120_000), services, compute: async () => null });
  };

  it('test.sh stopped by the workspace (SIGSTOP): 0 runner_killed', async () => {
    expect(await run('#!/bin/bash\n(sleep 0.2; kill -STOP $$) & wait\necho 1 > /logs/verifier/reward.txt\n')).toMatchObject({ status: 'OK', reward: 0, reason: 'runner_killed' });
  }, 150_000);

  it('the program test.sh waits on stopping itself is the test\'s to handle: under `timeout 3` the test ends it and writes its 0', async () => {
    expect(await run('#!/bin/bash\ncd /app\ntimeout 3 bash ./run.sh > out.txt\nif [ "$(cat out.txt)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n')).toMatchObject({ status: 'OK', reward: 0 });
  }, 150_000);

  it('a test that stops a helper it does not wait on, and resumes it, runs to its end', async () => {
    // It waits for the helper it kills: one merely signalled may still be alive when test.sh ends (leftover_processes).
    const test = '#!/bin/bash\nsleep 30 & h=$!\nkill -STOP $h\nsleep 2.5\nkill -CONT $h; kill $h; wait $h\necho 1 > /logs/verifier/reward.txt\n';
    expect(await run(test)).toMatchObject({ status: 'OK', reward: 1 });
  }, 150_000);
});

describe('terminal docker backend: what test.sh leaves', () => {
  const services = { terminal: tracked(new DockerWorkspace(dockerConfig())) };
  const run = (test: string) => scoreTerminal({ task: { id: 'left', tests: { 'test.sh': test } } }, { workspace: { tar: workspaceTar({ 'a.txt': 'a' }) } }, services);

  it('a helper test.sh killed without waiting is not left over, however late the signal lands (here: pending while it is stopped)', async () => {
    expect(await run('#!/bin/bash\nsleep 30 & h=$!\nuntil [ "$(cat /proc/$h/comm)" = sleep ]; do :; done\nkill -STOP $h; kill -TERM $h\necho 1 > /logs/verifier/reward.txt\n')).toMatchObject({ status: 'OK', reward: 1, reason: 'tests_passed' });
  }, 120_000);

  it('a helper left alive (stopped, or one that ignores the signal) is leftover_processes: 0', async () => {
    expect(await run('#!/bin/bash\nsleep 30 & h=$!\nkill -STOP $h\necho 1 > /logs/verifier/reward.txt\n')).toMatchObject({ status: 'OK', reward: 0, reason: 'leftover_processes' });
    expect(await run('#!/bin/bash\n(trap "" TERM; while :; do sleep 1; done) & h=$!\nsleep 0.5; kill -TERM $h\necho 1 > /logs/verifier/reward.txt\n')).toMatchObject({ status: 'OK', reward: 0, reason: 'leftover_processes' });
  }, 120_000);
});

describe('terminal docker backend: configuration', () => {
  const problems = async (terminal: unknown): Promise<readonly string[]> => {
    try {
      await (await createServices(parseConfig({ terminal }))).close();
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it('names the key of each problem: no docker section, an endpoint with neither or both of socket and host, a missing TLS file', async () => {
    expect(await problems({ backend: 'docker' })).toEqual([expect.stringContaining('terminal.docker')]);
    expect((await problems({ backend: 'docker', docker: { endpoints: { a: {}, b: { socketPath: '/s', host: 'h' } } } })).join('\n')).toMatch(/terminal\.docker\.endpoints\.a[^\n]*exactly one of socketPath, host[\s\S]*terminal\.docker\.endpoints\.b/);
    const tls = { host: 'engine.example', tls: { ca: '/nonexistent/ca.pem', cert: '/nonexistent/cert.pem', key: '/nonexistent/key.pem' } };
    expect(await problems({ backend: 'docker', docker: { endpoints: { remote: tls } } })).toEqual(expect.arrayContaining([expect.stringContaining('terminal.docker.endpoints.remote.tls.ca: /nonexistent/ca.pem does not exist')]));
    expect(await problems({ backend: 'docker', docker: { endpoints: { local: { socketPath: socket } } } })).toEqual([]);
  });
});
