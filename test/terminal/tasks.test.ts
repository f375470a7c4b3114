import type { Services } from '../../core/verifier';
import { BwrapWorkspace, terminalConfigSection } from '../../services/terminal';
import { scoreTerminal, TASKS, workspaceTar } from './helpers';

const LOG = ['1.2.3.4 - - [01/Jan/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 12', '1.2.3.5 - - [01/Jan/2026:10:00:00 +0000] "GET /x HTTP/1.1" 404 0', '1.2.3.6 - - [01/Jan/2026:10:00:00 +0000] "GET /y HTTP/1.1" 404 0'].join('\n') + '\n';

describe('terminal verifier: Harbor tasks in a real bubblewrap sandbox', () => {
  const services: Services = { terminal: new BwrapWorkspace(terminalConfigSection.parse({ taskDir: TASKS, workers: 2 })) };
  const score = (taskId: string, files: Parameters<typeof workspaceTar>[0], gzip = false) => scoreTerminal({ taskId }, { workspace: { tar: workspaceTar(files, { gzip }) } }, services);

  it.each([
    ['file-ops', { 'people.csv': 'name,age\nzoe,31\nadam,40\nmia,22\n', 'out/names.txt': 'adam\nmia\nzoe\n' }, { 'people.csv': 'name,age\nzoe,31\n', 'out/names.txt': 'zoe\nadam\nmia\n' }],
    ['script-output', { 'solve.sh': 'echo 2 3 5 7 11 13 17 19 23 29\n' }, { 'solve.sh': 'echo 2 3 5 7 11 13 17 19 23\n' }],
    ['log-count', { 'access.log': LOG, 'answer.txt': '2\n' }, { 'access.log': LOG, 'answer.txt': '3\n' }],
    ['pytest-json', { 'numbers.txt': '4 5 6\n', 'result.json': '{"sum": 15, "count": 3}' }, { 'numbers.txt': '4 5 6\n', 'result.json': '{"sum": 16, "count": 3}' }],
  ])('%s: a solved workspace earns 1, an unsolved one 0', async (task, solved, unsolved) => {
    expect(await score(task, solved)).toMatchObject({ status: 'OK', reward: 1, reason: 'tests_passed', details: { task } });
    expect(await score(task, unsolved, true)).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed', details: { task } });
  });

  it('reads reward.json before reward.txt, clamps, and is binary unless told otherwise', async () => {
    const inline = (script: string, binary?: boolean) =>
      scoreTerminal({ task: { id: 'inline', tests: { 'test.sh': script } }, ...(binary === undefined ? {} : { binary }) }, { workspace: { tar: workspaceTar({ 'a.txt': 'x' }) } }, services);
    expect(await inline('echo 0.5 > /logs/verifier/reward.txt')).toMatchObject({ reward: 0, details: { raw: 0.5 } });
    expect(await inline('echo 0.5 > /logs/verifier/reward.txt', false)).toMatchObject({ reward: 0.5 });
    expect(await inline('echo 7 > /logs/verifier/reward.txt', false)).toMatchObject({ reward: 1, details: { raw: 7 } });
    expect(await inline('echo -3 > /logs/verifier/reward.txt', false)).toMatchObject({ reward: 0 });
    expect(await inline('echo 1 > /logs/verifier/reward.txt; echo \'{"reward": 1.0}\' > /logs/verifier/reward.json')).toMatchObject({ reward: 1, details: { file: 'reward.json' } });
    expect(await inline('echo \'{"reward": 1.0}\' > /logs/verifier/reward.json')).toMatchObject({ reward: 1, details: { file: 'reward.json' } });
    expect(await inline('echo 1 > /logs/verifier/reward.txt; echo \'{"tests": 3}\' > /logs/verifier/reward.json')).toMatchObject({ reward: 1, details: { file: 'reward.txt' } });
  });

  it('makes a task that writes no reward, or an unreadable one, INVALID naming the task (Harbor: a verifier error, not 0)', async () => {
    const inline = (script: string) => scoreTerminal({ task: { id: 'broken-task', tests: { 'test.sh': script } } }, { workspace: { tar: workspaceTar({ 'a.txt': 'x' }) } }, services);
    expect(await inline('echo checking; exit 3')).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^task broken-task: test\.sh wrote no reward file \(exit 3\): checking/) });
    expect(await inline(': > /logs/verifier/reward.txt')).toMatchObject({ status: 'INVALID', reason: 'task broken-task: reward.txt is empty' });
    expect(await inline('echo yes > /logs/verifier/reward.txt')).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/reward\.txt is not a number/) });
    expect(await inline('echo "[1]" > /logs/verifier/reward.json')).toMatchObject({ status: 'INVALID', reason: 'task broken-task: reward.json is not an object' });
  });

  it('takes task.toml\'s limits from the task folder, and says INVALID or ABORTED for what it cannot resolve', async () => {
    const found = await services.terminal!.task('pytest-json');
    expect(found).toMatchObject({ kind: 'found', task: { timeoutSec: 60, cpus: 1, memoryMb: 1024, storageMb: 256, workdir: '/app', image: null, user: null, env: {}, network: null } });
    expect(await scoreTerminal({ taskId: 'nope' }, { workspace: { tar: workspaceTar({}) } }, services)).toMatchObject({ status: 'INVALID', reason: 'label.taskId: no task "nope" in terminal.taskDir' });
    expect(await scoreTerminal({ taskId: 'file-ops' }, {}, services)).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^metadata\.workspace: required/) });
    expect(await scoreTerminal({ taskId: 'file-ops' }, { workspace: { tar: 'not base64' } }, services)).toMatchObject({ status: 'INVALID', reason: 'metadata.workspace.tar: expected standard base64' });
    expect(await scoreTerminal({ taskId: 'file-ops' }, { workspace: { path: '../etc' } }, services)).toMatchObject({ status: 'INVALID' });
    expect(await scoreTerminal({ taskId: 'file-ops' }, { workspace: { tar: workspaceTar({}) } }, {})).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable' });
    expect(await scoreTerminal({ taskId: 'file-ops' }, { workspace: { tar: workspaceTar({}), root: '/tmp' } }, services)).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^metadata\.workspace\.root: expected "workdir"/) });
    expect(await scoreTerminal({ taskId: 'file-ops' }, { workspace: { tar: workspaceTar({}) }, environment: { endpoint: 'local', container: 'ep-1' } }, services)).toMatchObject({ status: 'INVALID', reason: 'metadata: expected one of metadata.workspace, metadata.environment, not both' });
    // The episode's running container (Harbor's shared mode) needs a container backend.
    expect(await scoreTerminal({ taskId: 'file-ops' }, { environment: { endpoint: 'local', container: 'ep-1' } }, services)).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable' });
    expect(await scoreTerminal({ task: { id: 'bad-toml', tests: { 'test.sh': 'exit 0' }, toml: { environment: { workdir: 'app' } } } }, { workspace: { tar: workspaceTar({}) } }, services)).toMatchObject({ status: 'INVALID', reason: 'label.task: task.toml [environment] workdir: expected an absolute path, received "app"' });
    const garbage = Buffer.alloc(2048, 7).toString('base64');
    expect(await scoreTerminal({ taskId: 'file-ops' }, { workspace: { tar: garbage } }, services)).toMatchObject({ status: 'ABORTED', reason: 'archive_unreadable' });
  });

  it('ABORTS when the test run exceeds its wall time (never a verdict from a clock)', async () => {
    const label = { task: { id: 'slow', tests: { 'test.sh': 'sleep 30; echo 1 > /logs/verifier/reward.txt' }, toml: { verifier: { timeout_sec: 1 } } } };
    expect(await scoreTerminal(label, { workspace: { tar: workspaceTar({}) } }, services)).toMatchObject({ status: 'ABORTED', reason: 'verifier_timeout' });
  });
});
