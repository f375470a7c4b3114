import type { JsonObject } from '../../core/json';
import { tarOf, type TarEntry } from '../../core/tar';
import type { Services } from '../../core/verifier';
import { BwrapWorkspace, terminalConfigSection } from '../../services/terminal';
import { scoreTerminal, TASKS, workspaceTar } from './helpers';

/**
 * Harbor tasks in Harbor's own layout (task.toml, instruction.md, environment/Dockerfile, tests/,
 * solution/ under test/fixtures/terminal/tasks) whose answers live outside /app, with their
 * episodes' files as a whole-filesystem change set — the way `docker export` gives them, system
 * folders included — through the bwrap backend.
 */
const services: Services = { terminal: new BwrapWorkspace(terminalConfigSection.parse({ taskDir: TASKS, workers: 2 })) };
const b64 = (entries: TarEntry[]) => Buffer.from(tarOf(entries)).toString('base64');
/** What an export of any Debian container holds besides the episode's files: skipped by bwrap. */
const SYSTEM: TarEntry[] = [
  { name: 'usr/lib/python3/dist-packages/sitecustomize.py', data: 'open("/logs/verifier/reward.txt", "w").write("1")\n' },
  { name: 'etc/passwd', data: 'root:x:0:0::/root:/bin/sh\n' },
  { name: 'bin', type: 'symlink', linkname: 'usr/bin' },
  { name: 'tests/test.sh', data: 'echo 1 > /logs/verifier/reward.txt\n', mode: 0o755 },
  { name: 'var/log/dpkg.log', data: 'install python3\n' },
];
const score = (taskId: string, workspace: JsonObject) => scoreTerminal({ taskId }, { workspace }, services);

describe('terminal: Harbor tasks whose answers live outside /app (bwrap, whole-filesystem change sets)', () => {
  it('home-app: the Dockerfile\'s WORKDIR /home/user/app and an answer in /tmp', async () => {
    const main = { name: 'home/user/app/main.py', data: 'print(sum(int(x) for x in open("numbers.txt").read().split()))\n' };
    const numbers = { name: 'home/user/app/numbers.txt', data: '3 4 5\n' };
    const solved = await score('home-app', { tar: b64([...SYSTEM, main, numbers, { name: 'tmp/answer.txt', data: '12\n' }]), root: '/' });
    expect(solved).toMatchObject({ status: 'OK', reward: 1, reason: 'tests_passed' });
    expect((solved.details as { skipped: string[] }).skipped).toEqual(expect.arrayContaining([expect.stringMatching(/^usr\/…: 1 member under a system folder/), expect.stringMatching(/^tests\/…: 1 member/)]));
    expect(await score('home-app', { tar: b64([...SYSTEM, main, numbers, { name: 'tmp/answer.txt', data: '13\n' }]), root: '/' })).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
    // The workdir alone (a tar of /home/user/app) lands at the task's workdir, but misses /tmp: 0.
    const workdirOnly = workspaceTar({ 'main.py': main.data, 'numbers.txt': numbers.data });
    expect(await score('home-app', { tar: workdirOnly })).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
  });

  it('data-results: [environment] workdir over the Dockerfile\'s, [verifier] user and env, answers in /data, /results and /solution', async () => {
    const files: TarEntry[] = [
      { name: 'data/sales.csv', data: 'region,amount\nnorth,5\nsouth,7\nnorth,1\neast,2\n' },
      { name: 'solution/report.py', data: '# the script\n' },
      { name: 'workspace', type: 'dir' },
    ];
    const right = { name: 'results/summary.csv', data: 'east,2\nnorth,6\nsouth,7\n' };
    const found = await services.terminal!.task('data-results');
    expect(found).toMatchObject({ kind: 'found', task: { workdir: '/workspace', user: 'tester', env: { EXPECTED_ROWS: '3', REPORT: 'summary.csv' }, network: { mode: 'no-network' } } });
    expect(await score('data-results', { tar: b64([...SYSTEM, ...files, right]), root: '/' })).toMatchObject({ status: 'OK', reward: 1 });
    expect(await score('data-results', { tar: b64([...SYSTEM, ...files, { ...right, data: 'north,6\n' }]), root: '/' })).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('py-shebang: a test.sh written in Python runs by its shebang', async () => {
    expect(await score('py-shebang', { tar: workspaceTar({ 'greeting.txt': 'hello\n' }) })).toMatchObject({ status: 'OK', reward: 1 });
    expect(await score('py-shebang', { tar: workspaceTar({ 'greeting.txt': 'bye\n' }) })).toMatchObject({ status: 'OK', reward: 0 });
  });
});

describe('terminal: honest outcomes when the environment, not the policy or the dataset, is at fault', () => {
  const inline = (tests: Record<string, string>, extra: JsonObject = {}) => scoreTerminal({ task: { id: 'inline', tests, ...extra } }, { workspace: { tar: workspaceTar({ 'a.txt': 'x' }) } }, services);

  it('a Terminal-Bench 2 test.sh that installs its tools needs the network: ABORTED naming it, never OK 0', async () => {
    const outcome = await score('tb2-uvx', { tar: workspaceTar({ 'calc.py': 'def add(a, b):\n    return a + b\n' }) });
    expect(outcome).toMatchObject({ status: 'ABORTED', reason: 'network_unavailable: network (apt-get, curl, uvx)', details: { network: ['apt-get', 'curl', 'uvx'] } });
  });

  it('tests importing a package the task\'s image has and this host lacks: ABORTED naming it', async () => {
    expect(await score('needs-image', { tar: workspaceTar({ 'model.pt': 'x' }) })).toMatchObject({ status: 'ABORTED', reason: 'module_not_found: python module torch' });
  });

  it('a command test.sh runs that this host lacks, or one found missing only as it ran (exit 127): ABORTED', async () => {
    expect(await inline({ 'test.sh': 'verdict-absent-tool --check && echo 1 > /logs/verifier/reward.txt' })).toMatchObject({ status: 'ABORTED', reason: 'command_not_found: verdict-absent-tool (not on PATH)' });
    expect(await inline({ 'test.sh': '#!/usr/bin/env verdict-absent-shell\necho 1 > /logs/verifier/reward.txt' })).toMatchObject({ status: 'ABORTED', reason: 'command_not_found: verdict-absent-shell (not on PATH)' });
    expect(await inline({ 'test.sh': 'tool=verdict-absent-tool\n$tool --check' })).toMatchObject({ status: 'ABORTED', reason: 'command_not_found' });
  });

  it('a tool of the task\'s image by path (a Terminus-2 verifier venv its Dockerfile makes): ABORTED unless the change set holds it; any other path is the policy\'s', async () => {
    const venv = '#!/usr/bin/env bash\ncd /app\necho 0 > /logs/verifier/reward.txt\n/opt/verifier-venv/bin/python -c "print(1)" > /tmp/ok && echo 1 > /logs/verifier/reward.txt\n';
    const dockerfile = 'FROM debian:12\nRUN python3 -m venv /opt/verifier-venv && /opt/verifier-venv/bin/pip install pytest\nWORKDIR /app\n';
    expect(await inline({ 'test.sh': venv }, { dockerfile })).toMatchObject({ status: 'ABORTED', reason: 'command_not_found: /opt/verifier-venv/bin/python (no such file)' });
    const changes = b64([{ name: 'opt/verifier-venv/bin/python', type: 'symlink', linkname: '/usr/bin/python3' }]);
    expect(await scoreTerminal({ task: { id: 'venv', tests: { 'test.sh': venv }, dockerfile } }, { workspace: { tar: changes, root: '/' } }, services)).toMatchObject({ status: 'OK', reward: 1 });
    // A path outside the workdir that the image does not make: the policy's to make, its absence a 0.
    expect(await inline({ 'test.sh': '/srv/tool/run.sh > /tmp/out 2>&1; [ "$(cat /tmp/out)" = 42 ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt' }, { dockerfile })).toMatchObject({ status: 'OK', reward: 0 });
    // By name, from a folder test.sh puts on PATH that the change set holds.
    const onPath = '#!/bin/bash\nexport PATH="/opt/verifier-venv/bin:$PATH"\nverdict-venv-python -c "print(1)" > /tmp/ok && echo 1 > /logs/verifier/reward.txt\n';
    expect(await inline({ 'test.sh': onPath }, { dockerfile })).toMatchObject({ status: 'ABORTED', reason: 'command_not_found: verdict-venv-python (not on PATH)' });
    const named = b64([{ name: 'opt/verifier-venv/bin/verdict-venv-python', type: 'symlink', linkname: '/usr/bin/python3' }]);
    expect(await scoreTerminal({ task: { id: 'venv', tests: { 'test.sh': onPath }, dockerfile } }, { workspace: { tar: named, root: '/' } }, services)).toMatchObject({ status: 'OK', reward: 1 });
    // The program the policy was to write, missing: the tests fail, its 0.
    expect(await inline({ 'test.sh': '/app/solve.sh > /tmp/out; [ "$(cat /tmp/out)" = 42 ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt' })).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('no reward file is the dataset\'s INVALID only where test.sh ran in the task\'s own environment', async () => {
    expect(await inline({ 'test.sh': 'exit 0' })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/wrote no reward file/) });
    // A task with its own image: bwrap's host /usr is only a stand-in for it.
    expect(await inline({ 'test.sh': 'exit 0' }, { dockerfile: 'FROM debian:12\nWORKDIR /app\n' })).toMatchObject({ status: 'ABORTED', reason: 'no_reward_file_outside_task_environment' });
  });
  it('is ABORTED when the tests read a file the episode changed in a system folder, which bwrap takes from the host (/etc, /usr/local)', async () => {
    const tests = { 'test.sh': '#!/bin/bash\ngrep -qx DEST=/var/backups /etc/backup.conf && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n' };
    const label = { task: { id: 'etc-conf', tests } };
    const solved = await scoreTerminal(label, { workspace: { tar: b64([...SYSTEM, { name: 'etc/backup.conf', data: 'DEST=/var/backups\n' }]), root: '/' } }, services);
    expect(solved).toMatchObject({ status: 'ABORTED', reason: 'episode_files_unavailable', details: { error: expect.stringContaining('/etc/backup.conf') } });
    // System files the tests never name (an export's /etc/passwd, sitecustomize.py) are skipped as before: the tests decide.
    expect(await scoreTerminal(label, { workspace: { tar: b64(SYSTEM), root: '/' } }, services)).toMatchObject({ status: 'OK', reward: 0, reason: 'tests_failed' });
    // A longer name that only starts with the path is another file.
    expect(await scoreTerminal(label, { workspace: { tar: b64([{ name: 'etc/backup', data: 'x' }]), root: '/' } }, services)).toMatchObject({ status: 'OK', reward: 0 });
  });
});
