import type Docker from 'dockerode';
import { terminalConfigSection } from '../../services/terminal';
import { DockerWorkspace } from '../../services/terminal/docker';
import { harborTaskOf, scoreTerminal } from './helpers';
import { BASE_IMAGE, startEngine, SuiteEngine } from './engine';

/**
 * Shared mode on the real engine: the episode's own container, left as an episode leaves it, and the
 * tricks that fool Harbor's plain verifier (each gives Harbor reward 1 for an unsolved episode).
 * Every test.sh here passes only when /app/answer.txt holds 42; no episode below solves the task
 * unless it says so.
 */
const engine = SuiteEngine.forThisFile();
const socket = engine.socket;

const config = (extra: Record<string, unknown> = {}) =>
  terminalConfigSection.parse({ backend: 'docker', docker: { endpoints: { local: { socketPath: socket } }, ...extra } });

/** A running container of the base image, and a root shell in it: the episode's own actions. */
async function episode(docker: Docker, ...commands: string[]): Promise<Docker.Container> {
  const container = await docker.createContainer({ Image: BASE_IMAGE, Cmd: ['sleep', 'infinity'], WorkingDir: '/app', HostConfig: { NetworkMode: 'none' } });
  await container.start();
  for (const command of commands) {
    const exec = await container.exec({ Cmd: ['bash', '-c', command], AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    stream.resume();
    await new Promise((resolve) => stream.on('end', resolve));
  }
  return container;
}

const PYTEST_TEST = {
  'test.sh': '#!/bin/bash\ncd /app\nif python3 -m pytest -q /tests/test_outputs.py; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
  'test_outputs.py': 'def test_answer():\n    assert open("/app/answer.txt").read().strip() == "42"\n',
};
const label = { task: { id: 'answer', tests: PYTEST_TEST } };

describe('terminal docker backend, shared mode: the episode\'s container', () => {
  const containers: Docker.Container[] = [];
  afterAll(async () => {
    for (const c of containers) await c.remove({ force: true }).catch(() => {});
  });
  const make = async (...commands: string[]) => {
    const c = await episode(engine.docker, ...commands);
    containers.push(c);
    return { environment: { endpoint: 'local', container: c.id } };
  };

  it('a pytest.py the episode left in the workdir, first on sys.path under `python3 -m pytest`, is not the test runner: 0 unsolved, 1 solved', async () => {
    const port = new DockerWorkspace(config());
    const plant = "printf 'import os\\nos._exit(0)\\n' > /app/pytest.py";
    const unsolved = await make(`mkdir -p /app && echo 41 > /app/answer.txt && ${plant}`);
    expect(await scoreTerminal(label, unsolved, { terminal: port })).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
    const solved = await make(`mkdir -p /app && echo 42 > /app/answer.txt && ${plant}`);
    expect(await scoreTerminal(label, solved, { terminal: port })).toMatchObject({ status: 'OK', reward: 1 });
    await port.close();
  });

  it('a pytest plugin the episode installed in dist-packages (a pytest11 entry point marking every test passed) is not loaded: 0 unsolved, 1 solved', async () => {
    const port = new DockerWorkspace(config());
    const site = '/usr/lib/python3/dist-packages';
    const plant = [
      `mkdir -p ${site}/passall-1.0.dist-info`,
      `printf 'import pytest\\n@pytest.hookimpl(hookwrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n    out = yield\\n    out.get_result().outcome = "passed"\\n' > ${site}/passall.py`,
      `printf 'Metadata-Version: 2.1\\nName: passall\\nVersion: 1.0\\n' > ${site}/passall-1.0.dist-info/METADATA`,
      `printf '[pytest11]\\npassall = passall\\n' > ${site}/passall-1.0.dist-info/entry_points.txt`,
    ].join(' && ');
    const unsolved = await make(`mkdir -p /app && echo 41 > /app/answer.txt && ${plant}`);
    expect(await scoreTerminal(label, unsolved, { terminal: port })).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
    const solved = await make(`mkdir -p /app && echo 42 > /app/answer.txt && ${plant}`);
    expect(await scoreTerminal(label, solved, { terminal: port })).toMatchObject({ status: 'OK', reward: 1 });
    await port.close();
  });

  it('a command test.sh decides with, replaced in the image\'s /usr/bin (grep that exits 0): 0 environment_tampered', async () => {
    const port = new DockerWorkspace(config());
    const grepLabel = { task: { id: 'grep', tests: { 'test.sh': '#!/bin/bash\ncd /app\nif grep -qx 42 answer.txt; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' } } };
    const unsolved = await make("mkdir -p /app && echo 41 > /app/answer.txt && printf '#!/bin/sh\\nexit 0\\n' > /usr/bin/grep");
    const outcome = await scoreTerminal(grepLabel, unsolved, { terminal: port });
    expect(outcome).toMatchObject({ status: 'OK', reward: 0, reason: 'environment_tampered' });
    expect((outcome.details as { tampered: string[] }).tampered).toContain('/usr/bin/grep');
    await port.close();
  });

  it('a new command earlier on PATH that shadows the image\'s (/usr/local/bin/grep before /usr/bin/grep) is 0 environment_tampered; a tool the image lacks is the episode\'s', async () => {
    const port = new DockerWorkspace(config());
    const grepLabel = { task: { id: 'grep', tests: { 'test.sh': '#!/bin/bash\ncd /app\nif grep -qx 42 answer.txt; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' } } };
    const unsolved = await make("mkdir -p /app && echo 41 > /app/answer.txt && printf '#!/bin/sh\\nexit 0\\n' > /usr/local/bin/grep && chmod +x /usr/local/bin/grep");
    const outcome = await scoreTerminal(grepLabel, unsolved, { terminal: port });
    expect(outcome).toMatchObject({ status: 'OK', reward: 0, reason: 'environment_tampered' });
    expect((outcome.details as { tampered: string[] }).tampered).toEqual(['/usr/local/bin/grep']);
    // A command the image lacks, installed into /usr/bin (also /bin/answer-tool through the usrmerge link): the episode's tool.
    const toolLabel = { task: { id: 'tool', tests: { 'test.sh': '#!/bin/bash\nif [ "$(answer-tool)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' } } };
    const installed = await make("printf '#!/bin/sh\\necho 42\\n' > /usr/bin/answer-tool && chmod +x /usr/bin/answer-tool && cp /usr/bin/answer-tool /usr/local/bin/answer-tool");
    expect(await scoreTerminal(toolLabel, installed, { terminal: port })).toMatchObject({ status: 'OK', reward: 1 });
    await port.close();
  });

  it('a test.sh that sets PYTHONPATH=/app itself still gets the hook (a .pth, removed afterwards: a second verification is no tampering): 0 unsolved, 1 solved', async () => {
    const port = new DockerWorkspace(config());
    const own = { task: { id: 'own-path', tests: { ...PYTEST_TEST, 'test.sh': PYTEST_TEST['test.sh'].replace('cd /app\n', 'cd /app\nexport PYTHONPATH=/app\n') } } };
    const plant = "printf 'import os\\nos._exit(0)\\n' > /app/pytest.py";
    const unsolved = await make(`mkdir -p /app && echo 41 > /app/answer.txt && ${plant}`);
    expect(await scoreTerminal(own, unsolved, { terminal: port })).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
    const solved = await make(`mkdir -p /app && echo 42 > /app/answer.txt && ${plant}`);
    expect(await scoreTerminal(own, solved, { terminal: port })).toMatchObject({ status: 'OK', reward: 1 });
    expect(await scoreTerminal(own, solved, { terminal: port })).toMatchObject({ status: 'OK', reward: 1 });
    await port.close();
  });

  it('a workspace module that ends pytest\'s own process (os._exit(0) on import) is 0 tests_exited_early; the solved episode 1', async () => {
    const port = new DockerWorkspace(config());
    const importing = { task: { id: 'imports', tests: {
      'test.sh': '#!/bin/bash\ncd /app\npython3 -m pytest --version\nif python3 -m pytest -q -p no:cacheprovider /tests/test_outputs.py; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
      'test_outputs.py': 'import sys\nsys.path.insert(0, "/app")\nfrom solution import answer\n\ndef test_answer():\n    assert answer() == 42\n',
    } } };
    const unsolved = await make("mkdir -p /app && printf 'import os\\nos._exit(0)\\n' > /app/solution.py");
    expect(await scoreTerminal(importing, unsolved, { terminal: port })).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_exited_early' });
    const solved = await make("mkdir -p /app && printf 'def answer():\\n    return 42\\n' > /app/solution.py");
    expect(await scoreTerminal(importing, solved, { terminal: port })).toMatchObject({ status: 'OK', reward: 1 });
    await port.close();
  });

  it('runs the tests where the episode ran: a solved episode is 1, an unsolved one 0, and the container runs on afterwards', async () => {
    const port = new DockerWorkspace(config());
    const solved = await make('mkdir -p /app && echo 42 > /app/answer.txt');
    expect(await scoreTerminal(label, solved, { terminal: port })).toMatchObject({ status: 'OK', reward: 1, reason: 'tests_passed' });
    // Verified twice: nothing of the first verification (its /tests, its reward) decides the second.
    const again = await scoreTerminal(label, solved, { terminal: port });
    expect(again.details).not.toHaveProperty('tampered');
    expect(again.details).not.toHaveProperty('episodeProcesses');
    expect(again).toMatchObject({ status: 'OK', reward: 1 });
    const unsolved = await make('mkdir -p /app && echo 41 > /app/answer.txt');
    expect(await scoreTerminal(label, unsolved, { terminal: port })).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
    // The unpause is off the result path; close() (service shutdown) waits for it.
    await port.close();
    const info = await engine.docker.getContainer(unsolved.environment.container).inspect();
    expect(info.State).toMatchObject({ Running: true, Paused: false });
  });

  it('stops a root daemon that rewrites reward.txt every few milliseconds before the tests, and reports it', async () => {
    // tamper: report, so that the tests run: the reward file the daemon wrote is a tampered path too.
    const port = new DockerWorkspace(config({ tamper: 'report' }));
    const env = await make('mkdir -p /app && echo 41 > /app/answer.txt', 'nohup setsid bash -c \'while :; do mkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt; sleep 0.002; done\' >/dev/null 2>&1 &');
    const result = await scoreTerminal(label, env, { terminal: port });
    expect(result).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed', details: { episodeProcessesStopped: true } });
    expect(JSON.stringify(result.details.episodeProcesses)).toMatch(/bash/);
  });

  it.each([
    ['a shadowed pytest earlier on PATH', 'printf "#!/bin/sh\\nexit 0\\n" > /usr/local/bin/pytest; chmod +x /usr/local/bin/pytest', '/usr/local/bin/pytest', { 'test.sh': 'cd /app; if pytest -q /tests/test_outputs.py; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi', 'test_outputs.py': PYTEST_TEST['test_outputs.py'] }],
    ['a patched _pytest in site-packages', 'f=$(python3 -c "import _pytest.runner as m; print(m.__file__)"); printf "\\ndef _verdict_pass(item):\\n    return []\\n" >> "$f"', '/_pytest/runner.py', PYTEST_TEST],
    ['code appended to the system sitecustomize.py', 'echo "import os; os.environ[\'X\']=\'1\'" >> /usr/lib/python3.11/sitecustomize.py', 'sitecustomize.py', PYTEST_TEST],
    ['a planted /tests/conftest.py', 'mkdir -p /tests && printf "import pytest\\n@pytest.hookimpl(hookwrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n    o = yield\\n    o.get_result().outcome = \'passed\'\\n" > /tests/conftest.py', '/tests/conftest.py', PYTEST_TEST],
    ['a planted /logs/verifier/reward.json', 'mkdir -p /logs/verifier && echo \'{"reward": 1}\' > /logs/verifier/reward.json', '/logs/verifier/reward.json', PYTEST_TEST],
    // The fused script drops to a test user through setpriv: one that keeps root would run the tests as root.
    ['a replaced setpriv', 'printf "#!/bin/sh\\nwhile [ \\"\\$1\\" != -- ]; do shift; done; shift; exec \\"\\$@\\"\\n" > /usr/bin/setpriv', '/usr/bin/setpriv', PYTEST_TEST],
  ])('%s: 0 environment_tampered, the path named in details', async (_name, trick, path, tests) => {
    const port = new DockerWorkspace(config());
    const env = await make('mkdir -p /app && echo 41 > /app/answer.txt', trick);
    const result = await scoreTerminal({ task: { id: 'answer', tests } }, env, { terminal: port });
    expect(result).toMatchObject({ status: 'OK', reward: 0, reason: 'environment_tampered' });
    expect(JSON.stringify(result.details.tampered)).toContain(path);
  });

  it('with tamper: report, a planted conftest.py and reward.json are removed before the tests and reported: the tests decide', async () => {
    const port = new DockerWorkspace(config({ tamper: 'report' }));
    const env = await make(
      'mkdir -p /app && echo 41 > /app/answer.txt',
      'mkdir -p /tests /logs/verifier && echo \'{"reward": 1}\' > /logs/verifier/reward.json && printf "import pytest\\n@pytest.hookimpl(hookwrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n    o = yield\\n    o.get_result().outcome = \'passed\'\\n" > /tests/conftest.py',
    );
    const result = await scoreTerminal(label, env, { terminal: port });
    expect(result).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
    expect(result.details.tampered).toEqual(expect.arrayContaining(['/tests/conftest.py', '/logs/verifier/reward.json']));
  });

  it('runs test.sh with the task\'s workdir, user and env, and its shebang', async () => {
    const port = new DockerWorkspace(config());
    const env = await make('mkdir -p /home/user/app && echo 42 > /home/user/app/answer.txt && chmod 755 /home/user/app');
    const task = harborTaskOf(
      { 'test.sh': '#!/usr/bin/python3\nimport os\nprint(os.getcwd(), os.getuid(), os.environ["ANSWER_FILE"])\nok = open(os.environ["ANSWER_FILE"]).read().strip() == "42"\nopen("/logs/verifier/reward.txt", "w").write("1" if ok else "0")\n' },
      port,
      { environment: { workdir: '/home/user/app' }, verifier: { user: 'nobody', env: { ANSWER_FILE: 'answer.txt' } } },
    );
    const run = await port.run(task, { container: { endpoint: 'local', id: env.environment.container } }, new AbortController().signal);
    expect(run).toMatchObject({ kind: 'finished', exitCode: 0, rewardTxt: '1' });
    if (run.kind === 'finished') expect(run.output).toMatch(/^\/home\/user\/app 65534 answer\.txt$/m);
  });

  it('runs test.sh as a user other than root in the same exec as the root script (its parent), and through the engine\'s own user when the image cannot drop to it', async () => {
    const port = new DockerWorkspace(config());
    const env = await make('mkdir -p /app && echo 42 > /app/answer.txt');
    // The parent's uid: the fused root script's (0) when one exec drops to the user; the three-exec
    // path execs test.sh in place, its parent outside the container (no /proc entry).
    const tests = { 'test.sh': '#!/bin/bash\necho "uid=$(id -u) gid=$(id -g) home=$HOME parent=$(stat -c %u /proc/$PPID 2>/dev/null || echo none)"\necho 1 > /logs/verifier/reward.txt\n' };
    const as = async (user: string) => {
      const run = await port.run(harborTaskOf(tests, port, { verifier: { user } }), { container: { endpoint: 'local', id: env.environment.container } }, new AbortController().signal);
      expect(run).toMatchObject({ kind: 'finished', exitCode: 0, rewardTxt: '1\n' });
      return run.kind === 'finished' ? run.output : '';
    };
    expect(await as('nobody')).toMatch(/^uid=65534 gid=65534 home=\/nonexistent parent=0$/m);
    expect(await as('65534')).toMatch(/^uid=65534 gid=65534 home=\/nonexistent parent=0$/m);
    // A uid /etc/passwd does not name: the engine resolves it, in its own exec.
    expect(await as('4242')).toMatch(/^uid=4242 gid=0 home=\/ parent=none$/m);
  });

  it('episodeProcesses: keep leaves a service the tests need running (reported, not a leftover); stop kills it; afterShared: remove removes the container', async () => {
    const service = 'nohup setsid bash -c \'while :; do echo up > /tmp/alive; sleep 0.05; done\' >/dev/null 2>&1 &';
    const needsService = { task: { id: 'service', tests: { 'test.sh': '#!/bin/bash\nrm -f /tmp/alive; sleep 0.5\nif [ -f /tmp/alive ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n' } } };
    const kept = await scoreTerminal(needsService, await make(service), { terminal: new DockerWorkspace(config({ episodeProcesses: 'keep' })) });
    expect(kept).toMatchObject({ status: 'OK', reward: 1, details: { episodeProcessesStopped: false } });
    expect(JSON.stringify(kept.details.episodeProcesses)).toMatch(/bash/);
    const stopped = await scoreTerminal(needsService, await make(service), { terminal: new DockerWorkspace(config()) });
    expect(stopped).toMatchObject({ status: 'OK', reward: 0, details: { episodeProcessesStopped: true } });
    const removed = await make('mkdir -p /app && echo 42 > /app/answer.txt');
    expect(await scoreTerminal(label, removed, { terminal: new DockerWorkspace(config({ afterShared: 'remove' })) })).toMatchObject({ status: 'OK', reward: 1 });
    await expect(engine.docker.getContainer(removed.environment.container).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('reaches an engine over TCP as well as over a unix socket (an endpoint with host and port)', async () => {
    const port = 20_000 + (process.pid % 20_000);
    const tcp = await startEngine(`tcp:127.0.0.1:${port}`);
    try {
      const remote = new DockerWorkspace(terminalConfigSection.parse({ backend: 'docker', docker: { endpoints: { remote: { host: '127.0.0.1', port } } } }));
      const env = await make('mkdir -p /app && echo 42 > /app/answer.txt');
      expect(await scoreTerminal(label, { environment: { endpoint: 'remote', container: env.environment.container } }, { terminal: remote })).toMatchObject({ status: 'OK', reward: 1 });
    } finally {
      await tcp.stop();
    }
  });

  it('is ABORTED naming what is missing: a container that is gone, an engine that is unreachable, an endpoint not configured is INVALID', async () => {
    const port = new DockerWorkspace(config());
    expect(await scoreTerminal(label, { environment: { endpoint: 'local', container: 'no-such-container' } }, { terminal: port })).toMatchObject({
      status: 'ABORTED',
      reason: 'environment_missing',
      details: { error: expect.stringContaining('no-such-container') },
    });
    const away = new DockerWorkspace(terminalConfigSection.parse({ backend: 'docker', docker: { endpoints: { local: { socketPath: `${socket}.absent` } } } }));
    expect(await scoreTerminal(label, { environment: { endpoint: 'local', container: 'x' } }, { terminal: away })).toMatchObject({ status: 'ABORTED', reason: 'engine_unreachable' });
    expect(await scoreTerminal(label, { environment: { endpoint: 'remote', container: 'x' } }, { terminal: port })).toMatchObject({ status: 'INVALID', reason: expect.stringContaining('metadata.environment.endpoint') });
  });
});
