import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import type { JsonObject } from '../../core/json';
import type { Outcome } from '../../core/sample';
import { terminalConfigSection } from '../../services/terminal';
import { DockerWorkspace } from '../../services/terminal/docker';
import { isRealFolder, readRewardFiles } from '../../services/terminal/docker/archive';
import { STASH } from '../../services/terminal/docker/processes';
import { scoreTerminal, workspaceTar } from './helpers';
import { BASE_IMAGE, SuiteEngine } from './engine';

/**
 * The paused reward read from the engine's storage on this host (host-read.ts), on the real engine:
 * taken where the container's MergedDir is visible here (`details.rewardRead: "host"`), the same
 * rewards as the archive API's (`hostRead: false`), nothing below MergedDir followed, and the
 * archive read again when the folder proves to be another container's.
 */
const engine = SuiteEngine.forThisFile();
const socket = engine.socket;

const port = (hostRead: 'auto' | false): DockerWorkspace => {
  const made = new DockerWorkspace(
    terminalConfigSection.parse({ backend: 'docker', maxWorkspaceMb: 2, docker: { endpoints: { local: { socketPath: socket, hostRead } }, defaultImage: BASE_IMAGE } }),
  );
  return engine.track(made);
};

/** A running episode container (named, when given) after these root shell commands. */
async function episode(name: string | undefined, ...commands: string[]): Promise<Docker.Container> {
  const container = await engine.docker.createContainer({ ...(name ? { name } : {}), Image: BASE_IMAGE, Cmd: ['sleep', 'infinity'], WorkingDir: '/app', HostConfig: { NetworkMode: 'none' } });
  engine.remove(container);
  await container.start();
  for (const command of commands) {
    const exec = await container.exec({ Cmd: ['bash', '-c', command], AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    stream.resume();
    await new Promise((resolve) => stream.on('end', resolve));
  }
  return container;
}

const ANSWER = '#!/bin/bash\nif [ "$(cat /app/answer.txt 2>/dev/null)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n';
const TESTS: Array<[string, string]> = [
  ['reward.txt from the answer', ANSWER],
  ['reward.json beside an agreeing reward.txt', '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\necho \'{"reward": 1}\' > /logs/verifier/reward.json\n# reward.json\n'],
  ['no reward file', '#!/bin/bash\necho nothing\n'],
  ['a symlinked reward.txt (to a file holding 1)', '#!/bin/bash\necho 1 > /tmp/r\nln -s /tmp/r /logs/verifier/reward.txt\n'],
  ['a hard-linked reward.txt', '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\nln -f /logs/verifier/reward.txt /tmp/other\n'],
  ['a folder at reward.txt', '#!/bin/bash\nmkdir /logs/verifier/reward.txt\n'],
];

const outcome = (result: Outcome) => ({ status: result.status, reward: 'reward' in result ? result.reward : null, reason: result.reason });

describe('terminal docker backend: the paused reward read from the host', () => {
  it.each(TESTS)('shared mode, %s: read on the host, the same outcome as the archive read', async (_name, test) => {
    const label = { task: { id: 'read', tests: { 'test.sh': test } } };
    for (const answer of ['42', '41']) {
      const container = await episode(undefined, `mkdir -p /app && echo ${answer} > /app/answer.txt`);
      const metadata = { environment: { endpoint: 'local', container: container.id } };
      const hostPort = port('auto');
      const host = await scoreTerminal(label, metadata, { terminal: hostPort });
      // The first port's unpause is off its result path: awaited before another port verifies the container.
      await hostPort.close();
      const archive = await scoreTerminal(label, metadata, { terminal: port(false) });
      expect(host.details.rewardRead).toBe('host');
      expect(archive.details.rewardRead).toBe('archive');
      expect(outcome(host)).toEqual(outcome(archive));
    }
  });

  it('the symlinked reward is not followed: 0 reward_file_not_regular, on the host read', async () => {
    const label = { task: { id: 'read', tests: { 'test.sh': TESTS[3]![1] } } };
    const container = await episode(undefined);
    const result = await scoreTerminal(label, { environment: { endpoint: 'local', container: container.id } }, { terminal: port('auto') });
    expect(result).toMatchObject({ status: 'OK', reward: 0, reason: 'reward_file_not_regular', details: { rewardRead: 'host' } });
  });

  it('fresh mode: read on the host, the same outcome as the archive read', async () => {
    const label = { task: { id: 'read', tests: { 'test.sh': ANSWER.replace(/\/app\//g, '') } } };
    for (const answer of ['42', '41']) {
      const metadata: JsonObject = { workspace: { tar: workspaceTar({ 'answer.txt': `${answer}\n` }) } };
      const host = await scoreTerminal(label, metadata, { terminal: port('auto') });
      const archive = await scoreTerminal(label, metadata, { terminal: port(false) });
      expect(host).toMatchObject({ status: 'OK', reward: answer === '42' ? 1 : 0, details: { rewardRead: 'host' } });
      expect(archive.details.rewardRead).toBe('archive');
      expect(outcome(host)).toEqual(outcome(archive));
    }
  });

  it('a folder that proves to be another container\'s (its nonce differs) is not read: the archive read, then the right folder', async () => {
    // Each container verified once: its MergedDir cached under its name, an earlier run's nonce in its stash.
    const verifier = port('auto');
    const label = { task: { id: 'read', tests: { 'test.sh': ANSWER } } };
    const names = { solved: `verdict-hostread-a-${process.pid}`, unsolved: `verdict-hostread-b-${process.pid}` };
    const solved = await episode(names.solved, 'mkdir -p /app && echo 42 > /app/answer.txt');
    const unsolved = await episode(names.unsolved, 'mkdir -p /app && echo 41 > /app/answer.txt');
    const by = (name: string) => ({ environment: { endpoint: 'local', container: name } });
    expect(await scoreTerminal(label, by(names.solved), { terminal: verifier })).toMatchObject({ reward: 1, details: { rewardRead: 'host' } });
    expect(await scoreTerminal(label, by(names.unsolved), { terminal: verifier })).toMatchObject({ reward: 0, details: { rewardRead: 'host' } });
    await verifier.close();
    // The names swapped: the cached folder of the solved name is now the unsolved container's.
    await solved.rename({ name: `${names.solved}-x` });
    await unsolved.rename({ name: names.solved });
    await solved.rename({ name: names.unsolved });
    expect(await scoreTerminal(label, by(names.solved), { terminal: verifier })).toMatchObject({ status: 'OK', reward: 0, details: { rewardRead: 'archive' } });
    // Inspected again: the host read of the right folder.
    await verifier.close();
    expect(await scoreTerminal(label, by(names.solved), { terminal: verifier })).toMatchObject({ status: 'OK', reward: 0, details: { rewardRead: 'host' } });
    expect(await scoreTerminal(label, by(names.unsolved), { terminal: verifier })).toMatchObject({ status: 'OK', reward: 1, details: { rewardRead: 'archive' } });
  });

  it('the archive read of a stash that is a symlink: the engine\'s stat shows the link (Podman\'s archive follows it)', async () => {
    const stat = async (container: Docker.Container) => ((await container.infoArchive({ path: STASH })) as { headers: Record<string, string> }).headers['x-docker-container-path-stat'];
    const linked = await episode(undefined, `mkdir -p /tmp/x && echo 1 > /tmp/x/reward.txt && ln -s /tmp/x ${STASH}`);
    expect(isRealFolder(await stat(linked), STASH)).toBe(false);
    const real = await episode(undefined, `mkdir -p ${STASH} && echo 1 > ${STASH}/reward.txt`);
    expect(isRealFolder(await stat(real), STASH)).toBe(true);
    const archive = (await real.getArchive({ path: STASH })) as unknown as Readable;
    expect(await readRewardFiles(archive, 1024, '.verdict-rewards')).toEqual({ rewardTxt: '1\n', rewardJson: null, notFiles: [] });
    // An archive whose folder is under another name (the link's target) holds no reward file of test.sh's.
    const other = await episode(undefined, 'mkdir -p /tmp/x && echo 1 > /tmp/x/reward.txt');
    const elsewhere = (await other.getArchive({ path: '/tmp/x' })) as unknown as Readable;
    expect(await readRewardFiles(elsewhere, 1024, '.verdict-rewards')).toEqual({ rewardTxt: null, rewardJson: null, notFiles: ['reward.txt', 'reward.json'] });
  });
});
