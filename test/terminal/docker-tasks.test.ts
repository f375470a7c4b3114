import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { terminalConfigSection } from '../../services/terminal';
import { DockerWorkspace } from '../../services/terminal/docker';
import { SuiteEngine } from './engine';
import { scoreTerminal, workspaceTar } from './helpers';

/**
 * Harbor-shaped tasks that need their own image (test/fixtures/terminal/docker-tasks): `tmp-report`
 * (a tool the host lacks, the answer in /tmp, a WORKDIR other than /app, [verifier] user and env),
 * built by `verdict tasks build` through the real engine; `missing-tool` (a command its image lacks).
 */
const TASKS = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'terminal', 'docker-tasks');
const VERDICT = path.join(__dirname, '..', '..', '..', 'bin', 'verdict.js');
const run = promisify(execFile);
const engine = SuiteEngine.forThisFile();
const socket = engine.socket;
/** Every port of this file: closed before the engine stops, so no removal left off the result path is cut short. */
const tracked = (port: DockerWorkspace): DockerWorkspace => engine.track(port);

const port = () => tracked(new DockerWorkspace(terminalConfigSection.parse({ backend: 'docker', taskDir: TASKS, docker: { endpoints: { local: { socketPath: socket } } } })));

async function shell(container: Docker.Container, command: string, user = 'root'): Promise<void> {
  const exec = await container.exec({ Cmd: ['bash', '-c', command], User: user, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  stream.resume();
  await new Promise((resolve) => stream.on('end', resolve));
}

describe('terminal docker backend: tasks with their own image', () => {
  it('verdict tasks build builds and tags each task\'s environment/Dockerfile through the engine, skips a task that names its image, and fails naming the step', async () => {
    const { stdout } = await run('node', [VERDICT, 'tasks', 'build', TASKS, '--socket', socket]);
    expect(stdout).toMatch(/^tmp-report\tbuilt localhost\/verdict-task-tmp-report:latest$/m);
    expect(stdout).toMatch(/^missing-tool\tskipped: task.toml names docker_image/m);
    const broken = mkdtempSync(path.join(tmpdir(), 'verdict-broken-task-'));
    mkdirSync(path.join(broken, 'environment'));
    writeFileSync(path.join(broken, 'environment', 'Dockerfile'), 'FROM localhost/verdict-task-base:bookworm\nRUN exit 7\n');
    const failed = await run('node', [VERDICT, 'tasks', 'build', broken, '--socket', socket]).catch((e: { code: number; stdout: string }) => e);
    expect(failed).toMatchObject({ code: 1, stdout: expect.stringMatching(/FAILED: .*7/) });
  }, 300_000);

  it('shared mode: the solution run in the task\'s container is 1 (tree from the image, /tmp, WORKDIR, [verifier] user and env), an unsolved one 0', async () => {
    const containers: Docker.Container[] = [];
    const start = async () => {
      const c = await engine.docker.createContainer({ Image: 'localhost/verdict-task-tmp-report:latest', Cmd: ['sleep', 'infinity'], HostConfig: { NetworkMode: 'none' } });
      containers.push(c);
      await c.start();
      return c;
    };
    try {
      const solved = await start();
      await shell(solved, 'tree -a --noreport /home/builder/app > /tmp/report.txt', 'builder');
      const unsolved = await start();
      await shell(unsolved, 'echo wrong > /tmp/report.txt', 'builder');
      const p = port();
      expect(await scoreTerminal({ taskId: 'tmp-report' }, { environment: { endpoint: 'local', container: solved.id } }, { terminal: p })).toMatchObject({ status: 'OK', reward: 1 });
      expect(await scoreTerminal({ taskId: 'tmp-report' }, { environment: { endpoint: 'local', container: unsolved.id } }, { terminal: p })).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
    } finally {
      for (const c of containers) await c.remove({ force: true }).catch(() => {});
    }
  }, 120_000);

  it('fresh mode: a whole-filesystem change set (/tmp/report.txt) in a new container of the task\'s image is 1; the same in the workdir is 0', async () => {
    // What tree prints in the task's image, taken from a container of it (its locale decides the drawing).
    const probe = await engine.docker.createContainer({ Image: 'localhost/verdict-task-tmp-report:latest', Cmd: ['sleep', 'infinity'], HostConfig: { NetworkMode: 'none' } });
    await probe.start();
    const exec = await probe.exec({ Cmd: ['tree', '-a', '--noreport', '/home/builder/app'], AttachStdout: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    const chunks: Buffer[] = [];
    const sink = new (await import('node:stream')).PassThrough();
    sink.on('data', (d: Buffer) => chunks.push(d));
    engine.docker.modem.demuxStream(stream, sink, sink);
    await new Promise((resolve) => stream.on('end', resolve));
    await probe.remove({ force: true });
    const report = Buffer.concat(chunks).toString();
    const p = port();
    const changeSet = workspaceTar({ 'tmp/report.txt': report });
    expect(await scoreTerminal({ taskId: 'tmp-report' }, { workspace: { tar: changeSet, root: '/' } }, { terminal: p })).toMatchObject({ status: 'OK', reward: 1 });
    const inWorkdir = workspaceTar({ 'report.txt': report });
    expect(await scoreTerminal({ taskId: 'tmp-report' }, { workspace: { tar: inWorkdir } }, { terminal: p })).toMatchObject({ status: 'OK', reward: 0 });
  }, 120_000);

  it('is ABORTED naming what the environment lacks: a command not in the task\'s image, an image that does not exist', async () => {
    const p = port();
    const tar = workspaceTar({ 'answer.json': '{"answer": 42}' });
    expect(await scoreTerminal({ taskId: 'missing-tool' }, { workspace: { tar } }, { terminal: p })).toMatchObject({ status: 'ABORTED', reason: expect.stringMatching(/^command_not_found: jq/) });
    const label = { task: { id: 'no-image', tests: { 'test.sh': 'echo 1 > /logs/verifier/reward.txt' }, toml: { environment: { docker_image: 'localhost/verdict-no-such-image:1' } } } };
    expect(await scoreTerminal(label, { workspace: { tar } }, { terminal: p })).toMatchObject({ status: 'ABORTED', reason: 'image_missing', details: { error: expect.stringContaining('localhost/verdict-no-such-image:1') } });
  }, 120_000);
});
