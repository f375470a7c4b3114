import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import * as tarStream from 'tar-stream';
import type { Sample } from '../core/sample';
import { scoreAsync } from '../core/score';
import type { AsyncVerifier } from '../core/verifier';
import { terminalConfigSection } from '../services/terminal';
import { DockerWorkspace } from '../services/terminal/docker';
import { BASE_IMAGE, engineSocket, startEngine } from '../test/terminal/engine';
import { terminal } from '../verifiers/terminal';
import { heading, row, timed } from './timing';

/**
 * The docker backend's tasks/s on a real engine (podman system service, as the tests start it), a
 * one-line test.sh, two lanes at once:
 *  - shared mode (the verifier on the episode's running container: tamper check, episode processes
 *    stopped, /tests replaced, exec, pause, reward read, cleanup) beside a bare loop of what Harbor's
 *    verifier does (tests uploaded through the archive API, exec of test.sh, the reward file read
 *    back through the archive API);
 *  - fresh mode (the verifier with a workspace tar: a new container, the workspace put in, the
 *    same verification, removed) beside a bare `run --rm` loop (create, start, wait, remove) whose
 *    command writes the answer and runs the same test.
 * Shared mode also with `hostRead: false` (the reward files read through the archive API, as
 * before the host read), on containers of its own. Each ratio divides the verifier's tasks/s by
 * its bare loop's (or by the archive read's), measured in the same run, in rounds that alternate them.
 */

const TEST = 'test "$(cat /app/answer.txt)" = 42 && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n';
const LANES = 2;

async function exec(docker: Docker, container: Docker.Container, cmd: string[]): Promise<number> {
  const e = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await e.start({ hijack: true, stdin: false });
  const sink = new PassThrough();
  sink.resume();
  docker.modem.demuxStream(stream, sink, sink);
  await new Promise((resolve) => stream.on('end', resolve));
  for (;;) {
    const info = await e.inspect();
    if (!info.Running) return info.ExitCode ?? -1;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function testsArchive(): Promise<Buffer> {
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: Buffer) => chunks.push(c));
  pack.entry({ name: 'tests', type: 'directory', mode: 0o755 });
  pack.entry({ name: 'tests/test.sh', mode: 0o755 }, TEST);
  pack.finalize();
  return new Promise((resolve) => pack.on('end', () => resolve(Buffer.concat(chunks))));
}

async function drain(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

export async function runDocker(): Promise<void> {
  heading(`terminal docker backend (podman ${'system service'}): tasks/s, the verifier vs bare engine loops (${LANES} at once)`);
  if (process.getuid?.() !== 0) {
    process.stdout.write('  skipped: the podman service of the bench needs root\n');
    return;
  }
  const socket = engineSocket();
  const engine = await startEngine(socket);
  const docker = engine.docker;
  const containers: Docker.Container[] = [];
  let port: DockerWorkspace | null = null;
  let archivePort: DockerWorkspace | null = null;
  try {
    // Each loop its own containers: what the bare loop leaves in /tests and /logs/verifier is, to the
    // verifier, an episode's change to them (the tamper check's 0).
    // Lanes 0..LANES-1: the verifier; LANES..2*LANES-1: the bare loop; then the verifier with hostRead: false.
    for (let k = 0; k < 3 * LANES; k++) {
      const c = await docker.createContainer({ Image: BASE_IMAGE, Cmd: ['sleep', 'infinity'], HostConfig: { NetworkMode: 'none' } });
      containers.push(c);
      await c.start();
      await exec(docker, c, ['sh', '-c', 'mkdir -p /app /logs/verifier && echo 42 > /app/answer.txt']);
    }
    port = new DockerWorkspace(
      terminalConfigSection.parse({ backend: 'docker', docker: { endpoints: { local: { socketPath: socket, maxConcurrency: LANES } }, defaultImage: BASE_IMAGE } }),
    );
    archivePort = new DockerWorkspace(
      terminalConfigSection.parse({ backend: 'docker', docker: { endpoints: { local: { socketPath: socket, maxConcurrency: LANES, hostRead: false } }, defaultImage: BASE_IMAGE } }),
    );
    const services = { terminal: port as DockerWorkspace };
    const archiveServices = { terminal: archivePort as DockerWorkspace };
    const tar = (await (async () => {
      const pack = tarStream.pack();
      const chunks: Buffer[] = [];
      pack.on('data', (c: Buffer) => chunks.push(c));
      pack.entry({ name: 'answer.txt', mode: 0o644 }, '42');
      pack.finalize();
      return new Promise<Buffer>((resolve) => pack.on('end', () => resolve(Buffer.concat(chunks))));
    })()).toString('base64');
    const label = { task: { id: 'bench', tests: { 'test.sh': TEST } } };
    const sample = (metadata: Sample['metadata']): Sample => ({ id: 'b', verifier: 'terminal', response: '', label, groupId: '', responseTokens: 0, metadata });
    const score = (metadata: Sample['metadata'], using = services) => scoreAsync(terminal as AsyncVerifier, sample(metadata), { signal: new AbortController().signal, services: using, compute: async () => null });
    const archiveShared = (lane: number) => score({ environment: { endpoint: 'local', container: containers[2 * LANES + lane]!.id } }, archiveServices);
    const tests = await testsArchive();

    const bareShared = async (c: Docker.Container) => {
      await c.putArchive(tests, { path: '/' });
      await exec(docker, c, ['bash', '-c', '/tests/test.sh > /logs/verifier/test-stdout.txt 2>&1']);
      const reward = await drain(await c.getArchive({ path: '/logs/verifier/reward.txt' }));
      if (!reward.includes('1\n')) throw new Error('bare shared loop: no reward 1');
    };
    const bareFresh = async () => {
      const c = await docker.createContainer({
        Image: BASE_IMAGE,
        Cmd: ['bash', '-c', `mkdir -p /app /logs/verifier && echo 42 > /app/answer.txt && ${TEST}`],
        HostConfig: { NetworkMode: 'none' },
      });
      await c.start();
      await c.wait();
      await c.remove();
    };
    // Warm both paths once.
    for (let lane = 0; lane < LANES; lane++) {
      await bareShared(containers[LANES + lane]!);
      await score({ environment: { endpoint: 'local', container: containers[lane]!.id } });
      await archiveShared(lane);
    }
    await bareFresh();
    await score({ workspace: { tar } });

    const ROUNDS = 3;
    const RUNS = 20;
    const lanes = (fn: (lane: number) => Promise<void>) => timed(() => Promise.all(Array.from({ length: LANES }, async (_, lane) => {
      for (let k = lane; k < RUNS; k += LANES) await fn(lane);
    })));
    const totals = { bareShared: 0, shared: 0, archiveShared: 0, bareFresh: 0, fresh: 0 };
    const rewarded = { shared: 0, archiveShared: 0, fresh: 0 };
    const hostReads = { shared: 0, fresh: 0 };
    // The outcomes that were not 1, by status and reason: a bench that scores wrongly says so.
    const misses = new Map<string, number>();
    const miss = (path: string, o: { status: string; reason?: string }) => {
      const key = `${path}: ${o.status} ${o.reason ?? ''}`.trim();
      misses.set(key, (misses.get(key) ?? 0) + 1);
    };
    for (let round = 0; round < ROUNDS; round++) {
      totals.bareShared += (await lanes((lane) => bareShared(containers[LANES + lane]!))).seconds;
      totals.shared += (
        await lanes(async (lane) => {
          const o = await score({ environment: { endpoint: 'local', container: containers[lane]!.id } });
          if (o.status === 'OK' && o.reward === 1) rewarded.shared++;
          else miss('shared', o);
          if (o.details.rewardRead === 'host') hostReads.shared++;
        })
      ).seconds;
      totals.archiveShared += (
        await lanes(async (lane) => {
          const o = await archiveShared(lane);
          if (o.status === 'OK' && o.reward === 1) rewarded.archiveShared++;
          else miss('shared, hostRead: false', o);
        })
      ).seconds;
      totals.bareFresh += (await lanes(() => bareFresh())).seconds;
      totals.fresh += (
        await lanes(async () => {
          const o = await score({ workspace: { tar } });
          if (o.status === 'OK' && o.reward === 1) rewarded.fresh++;
          else miss('fresh', o);
          if (o.details.rewardRead === 'host') hostReads.fresh++;
        })
      ).seconds;
    }
    const total = ROUNDS * RUNS;
    const rate = (s: number) => (total / s).toFixed(2);
    const widths = [84, 10];
    process.stdout.write(row(['path', 'tasks/s'], widths) + '\n');
    process.stdout.write(row([`bare Harbor verifier loop: upload tests, exec test.sh, read reward (${total})`, rate(totals.bareShared)], widths) + '\n');
    process.stdout.write(row([`verifier, shared mode (${total} runs, ${rewarded.shared} rewarded 1, ${hostReads.shared} read on the host)`, rate(totals.shared)], widths) + '\n');
    process.stdout.write(row([`verifier, shared mode, hostRead: false (${total} runs, ${rewarded.archiveShared} rewarded 1)`, rate(totals.archiveShared)], widths) + '\n');
    process.stdout.write(row([`bare run --rm loop: create, start, wait, remove (${total})`, rate(totals.bareFresh)], widths) + '\n');
    process.stdout.write(row([`verifier, fresh mode (${total} runs, ${rewarded.fresh} rewarded 1, ${hostReads.fresh} read on the host)`, rate(totals.fresh)], widths) + '\n');
    process.stdout.write(`  shared mode ÷ bare Harbor loop (tasks/s, this run, ${ROUNDS} alternating rounds of ${RUNS}): ${(totals.bareShared / totals.shared).toFixed(2)}× (goal ≥ 1.0×, pause and tamper check kept)\n`);
    process.stdout.write(`  shared mode, hostRead: false ÷ bare Harbor loop (tasks/s, this run): ${(totals.bareShared / totals.archiveShared).toFixed(2)}×; shared mode ÷ shared mode with hostRead: false: ${(totals.archiveShared / totals.shared).toFixed(2)}×\n`);
    for (const [key, count] of misses) process.stdout.write(`  not rewarded 1: ${key} (${count})\n`);
    process.stdout.write(`  fresh mode ÷ bare run --rm loop (tasks/s, this run): ${(totals.bareFresh / totals.fresh).toFixed(2)}× (goal ≥ 0.9×)\n`);
  } finally {
    // The verifier's unpauses and removals left off the result path.
    await port?.close();
    await archivePort?.close();
    for (const c of containers) await c.remove({ force: true }).catch(() => {});
    await engine.stop();
  }
}
