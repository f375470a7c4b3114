import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import * as tarStream from 'tar-stream';
import { WorkspaceError, type EnvironmentReport, type HarborTask, type HarborTaskLookup, type WorkspacePort, type WorkspaceRoot, type WorkspaceRun, type WorkspaceSource } from '../../../core/ports/workspace';
import type { DockerConfigSection, TerminalConfigSection } from '../config';
import { readArchive, type WorkspaceEntry } from '../tar';
import { loadHarborTask } from '../tasks';
import { freshTar, readRewardFiles, testsTar } from './archive';
import { taskImageTag } from './build';
import { applyDeletions } from './deletions';
import { engineClients, engineError } from './engine';
import { execIn, type ExecResult } from './exec';
import { CLEANUP, FUSED, LACKS, notFileLines, PREPARE, processLines, READY, RESET, RUN_TESTS, STASH } from './processes';
import { keptServices, servicesEnv } from './services';
import { tamperedPaths, type FilesystemChange } from './tamper';

/**
 * The `docker` backend of the `terminal` verifier: Harbor's verifier run through the Docker Engine
 * API (Docker, or `podman system service`), with Verdict's guarantees added
 * (verifiers/terminal/README.md, "The docker backend").
 *
 * - shared mode (`{environment: {endpoint, container}}`): the episode's own running container;
 * - fresh mode (a workspace archive or folder): a new container from the task's image, the
 *   workspace put in through the archive API, removed afterwards.
 *
 * Both then do the same: the tamper check (the engine's diff API), the episode's processes listed
 * and stopped, `/tests` replaced and `/logs/verifier` emptied, test.sh run through exec with the
 * task's workdir, user, env and timeout, the container **paused** the moment test.sh ends and the
 * reward files read through the archive API while nothing in it can run, then what the
 * verification left killed.
 */

const MAX_REWARD_BYTES = 64 << 10;
/** Where Python keeps bytecode during the tests: emptied before them, so no planted .pyc is read. */
const PYCACHE = '/tmp/.verdict-pycache';
/**
 * The top folders of a change set a container does not get: the kernel's and the runtime's
 * (`proc`, `sys`, `dev`, `run`) and Verdict's (`tests`, `logs`). The episode's `/usr` and `/etc`
 * do go in, and the tamper check sees them.
 */
const CONTAINER_SKIPPED_ROOTS: ReadonlySet<string> = new Set(['proc', 'sys', 'dev', 'run', 'tests', 'logs']);
/** Where Verdict's own files go in a container: no member of a workspace is put there. */
const RESERVED = /^\/(tests|logs\/verifier|tmp\/\.verdict-pycache)(\/|$)/;

const OUTPUT_TAIL_BYTES = 4000;

class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(count: number) {
    this.free = count;
  }
  async take(signal: AbortSignal): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    // Cancelled while it waited: give the slot on at once.
    if (signal.aborted) {
      this.give();
      throw new WorkspaceError(String(signal.reason ?? 'cancelled'));
    }
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** A workspace read by the member rules, and where it goes: under the workdir, or at `/`. */
interface Workspace {
  entries: WorkspaceEntry[];
  skipped: string[];
  root: WorkspaceRoot;
  /** A change set's deletions (its whiteouts), made again in a fresh container before the files go in. */
  deletions: string[];
}

interface ImageFacts {
  workdir: string;
  user: string;
}

export class DockerWorkspace implements WorkspacePort {
  readonly defaults: WorkspacePort['defaults'];
  readonly endpoints: string[];
  private readonly docker: DockerConfigSection;
  private readonly clients: Map<string, Docker>;
  private readonly slots = new Map<string, Slots>();
  private readonly tasks = new Map<string, HarborTaskLookup>();
  private readonly images = new Map<string, ImageFacts>();
  private readonly containers = new Map<string, { user: string; network: boolean }>();

  constructor(private readonly config: TerminalConfigSection) {
    if (config.docker === undefined) throw new Error('terminal.docker: required by the docker backend');
    this.docker = config.docker;
    this.defaults = config.defaults;
    this.clients = engineClients(config.docker);
    this.endpoints = [...this.clients.keys()];
    for (const [name, endpoint] of Object.entries(config.docker.endpoints)) this.slots.set(name, new Slots(endpoint.maxConcurrency));
  }

  async task(id: string): Promise<HarborTaskLookup | null> {
    if (this.config.taskDir === undefined) return null;
    let found = this.tasks.get(id);
    if (!found) this.tasks.set(id, (found = loadHarborTask(this.config.taskDir, id, this.config.defaults)));
    return found;
  }

  /** The tag `verdict tasks build` gives a task's image. */
  imageTag(taskId: string): string {
    return taskImageTag(this.docker.imagePrefix, taskId);
  }

  /** The engine client of an endpoint; the sample's endpoint is checked by the verifier against `endpoints`. */
  client(endpoint: string): Docker {
    const client = this.clients.get(endpoint);
    if (!client) throw new WorkspaceError('service_unavailable', `no engine endpoint "${endpoint}" in terminal.docker.endpoints`);
    return client;
  }

  private freshEndpoint(): string {
    return this.docker.freshEndpoint ?? this.endpoints[0]!;
  }

  async run(task: HarborTask, source: WorkspaceSource, signal: AbortSignal): Promise<WorkspaceRun> {
    if (signal.aborted) throw new WorkspaceError(String(signal.reason ?? 'cancelled'));
    const endpoint = 'container' in source ? source.container.endpoint : this.freshEndpoint();
    const docker = this.client(endpoint);
    // Read (and bounded) before a slot is taken: a workspace too large never starts a container.
    let workspace: Workspace | null = null;
    if (!('container' in source)) {
      const read = readArchive(await this.archiveOf(source), { maxBytes: this.config.maxWorkspaceMb << 20, maxMembers: this.config.maxMembers }, source.root, CONTAINER_SKIPPED_ROOTS);
      if (!read.ok) return { kind: 'too_large', what: read.tooLarge };
      workspace = { entries: read.entries, skipped: read.skipped, root: source.root, deletions: read.deletions };
    }
    const slots = this.slots.get(endpoint)!;
    await slots.take(signal);
    try {
      if (signal.aborted) throw new WorkspaceError(String(signal.reason ?? 'cancelled'));
      if ('container' in source) return await this.shared(docker, endpoint, source.container.id, task, signal);
      return await this.fresh(docker, endpoint, task, workspace!, signal);
    } finally {
      slots.give();
    }
  }

  private async archiveOf(source: Exclude<WorkspaceSource, { container: unknown }>): Promise<Uint8Array> {
    if ('tar' in source) return source.tar;
    const full = this.resolve(source.path);
    if (!statSync(full).isDirectory()) return readFileSync(full);
    // A folder: archived by the system's tar, then read by the same member rules as an archive.
    return new Promise((resolve, reject) =>
      execFile('tar', ['-C', full, '-cf', '-', '.'], { encoding: 'buffer', maxBuffer: (this.config.maxWorkspaceMb << 20) * 2 + (64 << 20) }, (error, stdout) =>
        error ? reject(new WorkspaceError('workspace_unavailable', `${source.path}: ${error.message.split('\n')[0]}`)) : resolve(stdout),
      ),
    );
  }

  private resolve(rel: string): string {
    if (this.config.workspaceRoot === undefined) throw new WorkspaceError('service_unavailable', 'metadata.workspace.path needs terminal.workspaceRoot');
    const full = path.resolve(this.config.workspaceRoot, rel);
    if (!full.startsWith(path.resolve(this.config.workspaceRoot) + path.sep)) throw new WorkspaceError('workspace_unavailable', `${rel}: outside terminal.workspaceRoot`);
    if (!existsSync(full)) throw new WorkspaceError('workspace_unavailable', `${rel}: no such workspace under terminal.workspaceRoot`);
    return full;
  }

  /** Shared mode: the episode's running container, left unpaused (or removed) afterwards. */
  private async shared(docker: Docker, endpoint: string, name: string, task: HarborTask, signal: AbortSignal): Promise<WorkspaceRun> {
    const container = docker.getContainer(name);
    const what = `container "${name}"`;
    // A container's user and network never change: looked up once per container. Whether it still
    // runs is then the next engine call's to say (404 gone, 409 paused or stopped).
    const key = `${endpoint}/${name}`;
    let facts = this.containers.get(key);
    if (!facts) {
      const info = await container.inspect().catch((error: unknown) => {
        throw engineError(error, endpoint, what);
      });
      if (!info.State.Running || info.State.Paused) throw new WorkspaceError('environment_unavailable', `${what} on engine endpoint "${endpoint}" is ${info.State.Status}, not running`);
      facts = { user: info.Config?.User ?? '', network: info.HostConfig?.NetworkMode !== 'none' };
      if (this.containers.size >= 10_000) this.containers.clear();
      this.containers.set(key, facts);
    }
    const network = facts.network;
    const rootUser = isRoot(task.user === null ? facts.user : String(task.user));
    try {
      return await this.verify(docker, endpoint, container, what, task, [], { stop: this.docker.episodeProcesses === 'stop', network, rootUser }, signal);
    } finally {
      if (this.docker.afterShared === 'remove') {
        this.containers.delete(key);
        await container.remove({ force: true }).catch(() => {});
      }
    }
  }

  /** Fresh mode: a new container from the task's image with the workspace put in; removed afterwards. */
  private async fresh(docker: Docker, endpoint: string, task: HarborTask, workspace: Workspace, signal: AbortSignal): Promise<WorkspaceRun> {
    const { image, facts } = await this.imageOf(docker, endpoint, task);
    const workdir = task.workdir ?? (facts.workdir || this.config.defaults.workdir);
    // Harbor's network modes: "public" on; "no-network" off; an allowlist (which a bridge cannot
    // enforce) and a task that says nothing follow terminal.docker.network.
    const network = task.network?.mode === 'public' || (task.network?.mode !== 'no-network' && this.docker.network);
    let container: Docker.Container;
    try {
      container = await docker.createContainer({
        Image: image,
        Entrypoint: ['sleep'],
        Cmd: ['infinity'],
        User: '0',
        WorkingDir: workdir,
        Labels: { 'verdict.task': task.id },
        HostConfig: {
          NetworkMode: network ? 'bridge' : 'none',
          NanoCpus: Math.round(task.cpus * 1e9),
          Memory: task.memoryMb * 1024 * 1024,
        },
      });
    } catch (error) {
      throw engineError(error, endpoint, `image "${image}"`);
    }
    const what = `fresh container of image "${image}"`;
    try {
      await container.start();
      const user = task.user === null ? facts.user : String(task.user);
      // A workdir's files are the test user's (the episode wrote them as that user); a change set
      // rooted at / is root's, as `docker export` of a root episode gives it.
      const uid = workspace.root === 'workdir' ? await this.uidOf(container, user) : 0;
      const base = workspace.root === 'workdir' ? workdir : '/';
      const where = (rel: string) => (rel === '.' ? base : path.posix.join(base, rel));
      // The tamper check of a fresh container is over what the episode's archive changes (what the
      // diff API would list once it is in), and members where Verdict's own files go are not put in.
      // A change set's file or link at /, where the workdir or a folder above it goes, or where /tmp
      // is, is not put in: test.sh runs there, and the policy cannot make the run a backend failure.
      const above = new Set(workdir.split('/').filter((p) => p !== '').map((_, k, parts) => parts.slice(0, k + 1).join('/')));
      const misplaced = (e: WorkspaceEntry) => workspace.root === 'filesystem' && e.kind !== 'dir' && (!e.path.includes('/') || above.has(e.path));
      for (const e of workspace.entries) if (misplaced(e)) workspace.skipped.push(`${e.path}: a ${e.kind} where a top folder or the workdir's folders go`);
      const placed = workspace.entries.filter((e) => !misplaced(e));
      const tampered = tamperedPaths(placed.map((e) => ({ Path: where(e.path), Kind: 1 })));
      const entries = placed.filter((e) => !RESERVED.test(where(e.path)));
      await applyDeletions(docker, container, workspace.deletions);
      await container.putArchive(await freshTar(entries, base, uid, task.tests), { path: '/' });
      const prepared: EnvironmentReport = { tampered, processes: [], processesStopped: false };
      return await this.verify(docker, endpoint, container, what, { ...task, workdir, user: user === '' ? null : user }, workspace.skipped, { stop: true, network, prepared, rootUser: isRoot(user) }, signal);
    } catch (error) {
      throw engineError(error, endpoint, what);
    } finally {
      await container.remove({ force: true }).catch(() => {});
    }
  }

  /** task.toml's docker_image, else the image `verdict tasks build` made, else terminal.docker.defaultImage. */
  private async imageOf(docker: Docker, endpoint: string, task: HarborTask): Promise<{ image: string; facts: ImageFacts }> {
    if (task.image !== null) return { image: task.image, facts: await this.imageFacts(docker, endpoint, task.image) };
    const built = this.imageTag(task.id);
    try {
      return { image: built, facts: await this.imageFacts(docker, endpoint, built) };
    } catch (error) {
      const fallback = this.docker.defaultImage;
      if (fallback === undefined || !(error instanceof WorkspaceError) || error.reason !== 'image_missing') throw error;
      return { image: fallback, facts: await this.imageFacts(docker, endpoint, fallback) };
    }
  }

  private async imageFacts(docker: Docker, endpoint: string, image: string): Promise<ImageFacts> {
    const known = this.images.get(image);
    if (known) return known;
    const info = await docker
      .getImage(image)
      .inspect()
      .catch((error: unknown) => {
        throw engineError(error, endpoint, `image "${image}"`);
      });
    const facts = { workdir: info.Config?.WorkingDir ?? '', user: info.Config?.User ?? '' };
    this.images.set(image, facts);
    return facts;
  }

  /** The numeric uid the workspace's files get: the test user's, from the container's /etc/passwd. */
  private async uidOf(container: Docker.Container, user: string): Promise<number> {
    const name = user.split(':')[0] ?? '';
    if (name === '' || name === 'root') return 0;
    if (/^\d+$/.test(name)) return Number(name);
    const stream = (await container.getArchive({ path: '/etc/passwd' })) as unknown as Readable;
    const passwd = await readFileFromTar(stream, 'passwd');
    for (const line of passwd.split('\n')) {
      const fields = line.split(':');
      if (fields[0] === name && /^\d+$/.test(fields[2] ?? '')) return Number(fields[2]);
    }
    throw new WorkspaceError('environment_unavailable', `user "${name}" ([verifier] user) is not in the image's /etc/passwd`);
  }

  /**
   * The verification proper, in either mode. `stop`: kill the processes found before the tests
   * (else they are kept, a service the tests need, and only reported); `network`: whether the
   * container has one (a test.sh that downloads needs it).
   */
  private async verify(
    docker: Docker,
    endpoint: string,
    container: Docker.Container,
    what: string,
    task: HarborTask,
    skipped: string[],
    mode: { stop: boolean; network: boolean; prepared?: EnvironmentReport; rootUser: boolean },
    signal: AbortSignal,
  ): Promise<WorkspaceRun> {
    if (mode.rootUser) return this.verifyFused(docker, endpoint, container, what, task, skipped, mode, signal);
    const call = <T>(promise: Promise<T>): Promise<T> =>
      promise.catch((error: unknown) => {
        throw engineError(error, endpoint, what);
      });
    const root = (script: string, env: string[]) => call(execIn(docker, container, { cmd: ['sh', '-c', script], user: '0', workdir: '/', env, tailBytes: 64 << 10 }));

    let report: EnvironmentReport;
    let keep = '';
    if (mode.prepared) {
      // A fresh container: its tests and reward folder came in with the workspace, nothing else runs.
      report = mode.prepared;
      if (report.tampered.length > 0 && this.docker.tamper === 'zero') return { kind: 'workspace_fault', fault: 'environment_tampered', output: '', skipped, report };
    } else {
      // The diff first: what the episode changed, before anything of Verdict's is in the container.
      // Podman answers the diff of a missing container with a 500: the inspect then names it.
      const changes = (await container.changes().catch(async (error: unknown) => {
        await call(container.inspect());
        throw engineError(error, endpoint, what);
      })) as FilesystemChange[] | null;
      const tampered = tamperedPaths(changes);
      const prepare = await root(PREPARE, [`STOP=${mode.stop ? 1 : 0}`, `PYTHONPYCACHEPREFIX=${PYCACHE}`, servicesEnv(task)]);
      const episode = processLines(prepare.output, 'episode');
      report = { tampered, processes: episode.map((p) => `${p.pid} ${p.name}`), processesStopped: mode.stop && episode.length > 0, ...keptServices(prepare.output) };
      if (prepare.exitCode === 4) throw new WorkspaceError('environment_unavailable', `${what}: the episode's processes survived being killed: ${report.processes.slice(0, 10).join(', ')}`);
      if (prepare.exitCode !== 0) throw new WorkspaceError('environment_unavailable', `${what}: /tests and /logs/verifier could not be reset (exit ${prepare.exitCode}): ${prepare.output.slice(-300)}`);
      if (tampered.length > 0 && this.docker.tamper === 'zero') return { kind: 'workspace_fault', fault: 'environment_tampered', output: '', skipped, report };
      await call(container.putArchive(await testsTar(task.tests), { path: '/' }));
      keep = [...(report.services ?? []).map((p) => p.split(' ')[0]!), ...(mode.stop ? [] : episode.map((p) => p.pid))].join(' ');
    }
    if (task.needs.network.length > 0 && !mode.network) return { kind: 'environment_lacks', commands: [], pythonModules: [], network: task.needs.network };
    const cleanupEnv = [`KEEP=${keep}`, `PYTHONPYCACHEPREFIX=${PYCACHE}`];

    // Cancelled while the container was being prepared (no await between here and the listener).
    if (signal.aborted) throw new WorkspaceError(String(signal.reason ?? 'cancelled'));
    // Wall time and cancel cut the test short by killing what it started; its exec then ends.
    let failure: WorkspaceError | null = null;
    let cutting: Promise<ExecResult | null> = Promise.resolve(null);
    const cut = (error: WorkspaceError) => {
      if (failure) return;
      failure = error;
      cutting = root(CLEANUP, cleanupEnv).catch(() => null);
    };
    const timer = setTimeout(() => cut(new WorkspaceError('verifier_timeout', `test.sh ran past ${task.timeoutSec} s of wall time`)), task.timeoutSec * 1000);
    const onAbort = () => cut(new WorkspaceError(String(signal.reason ?? 'cancelled')));
    signal.addEventListener('abort', onAbort, { once: true });
    let test: ExecResult;
    try {
      test = await call(
        execIn(docker, container, {
          cmd: ['sh', '-c', RUN_TESTS, 'verdict', ...task.needs.commands],
          ...(task.user !== null ? { user: String(task.user) } : {}),
          ...(task.workdir !== null ? { workdir: task.workdir } : {}),
          env: [...Object.entries(task.env).map(([k, v]) => `${k}=${v}`), `PYTHONPYCACHEPREFIX=${PYCACHE}`, `VERDICT_MODULES=${task.needs.pythonModules.join(' ')}`],
          tailBytes: OUTPUT_TAIL_BYTES,
        }),
      );
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    if (failure) {
      // Past its wall time because the workspace stopped it (SIGSTOP): the workspace's doing, a 0.
      const timedOut = await this.afterCut(failure, await cutting, test.output, skipped, report);
      if (timedOut) return timedOut;
      throw failure;
    }

    // Frozen (cgroup freezer) from the moment test.sh ended: no process in the container can
    // rewrite a reward file between the write and the read.
    await call(container.pause());
    let rewards;
    try {
      rewards = await call(container.getArchive({ path: '/logs/verifier' }).then((stream) => readRewardFiles(stream as unknown as Readable, MAX_REWARD_BYTES)));
    } finally {
      await call(container.unpause());
    }
    const cleanup = await root(CLEANUP, cleanupEnv);
    const left = processLines(cleanup.output, 'left');
    const lacks = test.head.startsWith(LACKS) ? test.head.slice(LACKS.length).split('\n', 1)[0]!.trim().split(' ') : null;
    if (lacks !== null) {
      const commands = lacks.filter((w) => w.startsWith('cmd:')).map((w) => w.slice(4));
      const pythonModules = lacks.filter((w) => w.startsWith('mod:')).map((w) => w.slice(4));
      return { kind: 'environment_lacks', commands, pythonModules, network: [] };
    }
    const output = test.output.startsWith(READY) ? test.output.slice(READY.length) : test.output;
    if (test.exitCode >= 128) return { kind: 'workspace_fault', fault: 'runner_killed', output, skipped, report };
    if (left.length > 0) return { kind: 'workspace_fault', fault: 'leftover_processes', output, skipped, report };
    return { kind: 'finished', exitCode: test.exitCode, rewardTxt: rewards.rewardTxt, rewardJson: rewards.rewardJson, rewardNotFile: rewards.notFiles, output, skipped, environment: 'task', report };
  }

  /**
   * A run cut at its wall time that is the workspace's doing after all: test.sh stopped (SIGSTOP),
   * or blocked writing a reward path that is not a file (a fifo). Null: the overrun stands.
   */
  private async afterCut(failure: WorkspaceError, cleaned: ExecResult | null, output: string, skipped: string[], report: EnvironmentReport): Promise<WorkspaceRun | null> {
    if (failure.reason !== 'verifier_timeout' || cleaned === null) return null;
    const notFiles = notFileLines(cleaned.output);
    if (notFiles.length > 0) return { kind: 'finished', exitCode: 124, rewardTxt: null, rewardJson: null, rewardNotFile: notFiles, output, skipped, environment: 'task', report };
    if (processLines(cleaned.output, 'left').some((p) => p.state === 'T' || p.state === 't')) return { kind: 'workspace_fault', fault: 'runner_killed', output, skipped, report };
    return null;
  }

  /**
   * The verification in one exec (processes.ts FUSED) when test.sh runs as root: the same steps
   * and guarantees as `verify`, less two execs. The reward files are read, paused, from where the
   * script moved them once test.sh and everything it started were gone.
   */
  private async verifyFused(
    docker: Docker,
    endpoint: string,
    container: Docker.Container,
    what: string,
    task: HarborTask,
    skipped: string[],
    mode: { stop: boolean; network: boolean; prepared?: EnvironmentReport },
    signal: AbortSignal,
  ): Promise<WorkspaceRun> {
    const call = <T>(promise: Promise<T>): Promise<T> =>
      promise.catch((error: unknown) => {
        throw engineError(error, endpoint, what);
      });
    let tampered: string[];
    if (mode.prepared) tampered = mode.prepared.tampered;
    else {
      // Podman answers the diff of a missing container with a 500: the inspect then names it.
      const changes = (await container.changes().catch(async (error: unknown) => {
        await call(container.inspect());
        throw engineError(error, endpoint, what);
      })) as FilesystemChange[] | null;
      tampered = tamperedPaths(changes);
    }
    const zero = tampered.length > 0 && this.docker.tamper === 'zero';
    if (mode.prepared && zero) return { kind: 'workspace_fault', fault: 'environment_tampered', output: '', skipped, report: mode.prepared };
    if (task.needs.network.length > 0 && !mode.network) return { kind: 'environment_lacks', commands: [], pythonModules: [], network: task.needs.network };
    if (signal.aborted) throw new WorkspaceError(String(signal.reason ?? 'cancelled'));

    // Once the script has reset /tests and /logs/verifier (and stopped the episode's processes),
    // the tests go in and it is told to go on; `stop` when the tamper policy ends the run there.
    let answered = false;
    let putFailure: unknown = null;
    const dialog = (head: string, write: (text: string) => void) => {
      if (answered || !head.includes(RESET)) return;
      answered = true;
      if (zero) return write('stop\n');
      testsTar(task.tests)
        .then((tar) => container.putArchive(tar, { path: '/' }))
        .then(
          () => write('go\n'),
          (error: unknown) => {
            putFailure = error;
            write('stop\n');
          },
        );
    };
    const episodeOf = (head: string) => processLines(head.split(RESET)[0]!, 'episode');
    let failure: WorkspaceError | null = null;
    let head = '';
    let cutting: Promise<ExecResult | null> = Promise.resolve(null);
    const cut = (error: WorkspaceError) => {
      if (failure) return;
      failure = error;
      const services = (keptServices(head.split(RESET)[0]!).services ?? []).map((p) => p.split(' ')[0]!);
      const keep = [...services, ...(mode.stop ? [] : episodeOf(head).map((p) => p.pid))].join(' ');
      cutting = call(execIn(docker, container, { cmd: ['sh', '-c', CLEANUP], user: '0', workdir: '/', env: [`KEEP=${keep}`, `PYTHONPYCACHEPREFIX=${PYCACHE}`], tailBytes: 64 << 10 })).catch(() => null);
    };
    const timer = setTimeout(() => cut(new WorkspaceError('verifier_timeout', `test.sh ran past ${task.timeoutSec} s of wall time`)), task.timeoutSec * 1000);
    const onAbort = () => cut(new WorkspaceError(String(signal.reason ?? 'cancelled')));
    signal.addEventListener('abort', onAbort, { once: true });
    let run: ExecResult;
    try {
      run = await call(
        execIn(docker, container, {
          cmd: ['sh', '-c', FUSED, 'verdict', ...task.needs.commands],
          user: '0',
          ...(task.workdir !== null ? { workdir: task.workdir } : {}),
          env: [
            ...Object.entries(task.env).map(([k, v]) => `${k}=${v}`),
            `PYTHONPYCACHEPREFIX=${PYCACHE}`,
            `VERDICT_MODULES=${task.needs.pythonModules.join(' ')}`,
            `STOP=${mode.stop ? 1 : 0}`,
            servicesEnv(task),
            `FRESH=${mode.prepared ? 1 : 0}`,
          ],
          tailBytes: OUTPUT_TAIL_BYTES,
          dialog: (text, write) => {
            head = text;
            dialog(text, write);
          },
        }),
      );
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    head = run.head;
    const episode = mode.prepared ? [] : episodeOf(head);
    const report: EnvironmentReport = mode.prepared ?? { tampered, processes: episode.map((p) => `${p.pid} ${p.name}`), processesStopped: mode.stop && episode.length > 0, ...keptServices(head.split(RESET)[0]!) };
    if (failure) {
      const timedOut = await this.afterCut(failure, await cutting, testOutput(run.output), skipped, report);
      if (timedOut) return timedOut;
      throw failure;
    }
    if (putFailure !== null) throw engineError(putFailure, endpoint, what);
    const reset = mode.prepared !== undefined || head.includes(RESET);
    if (!reset && run.exitCode === 4) throw new WorkspaceError('environment_unavailable', `${what}: the episode's processes survived being killed: ${report.processes.slice(0, 10).join(', ')}`);
    if (!reset) throw new WorkspaceError('environment_unavailable', `${what}: /tests and /logs/verifier could not be reset (exit ${run.exitCode}): ${run.output.slice(-300)}`);
    if (zero) return { kind: 'workspace_fault', fault: 'environment_tampered', output: '', skipped, report };
    const afterReset = mode.prepared ? head : head.slice(head.indexOf(RESET) + RESET.length);
    if (afterReset.startsWith(LACKS)) {
      const lacks = afterReset.slice(LACKS.length).split('\n', 1)[0]!.trim().split(' ');
      return { kind: 'environment_lacks', commands: lacks.filter((w) => w.startsWith('cmd:')).map((w) => w.slice(4)), pythonModules: lacks.filter((w) => w.startsWith('mod:')).map((w) => w.slice(4)), network: [] };
    }
    await call(container.pause());
    let rewards;
    try {
      rewards = await call(container.getArchive({ path: STASH }).then((stream) => readRewardFiles(stream as unknown as Readable, MAX_REWARD_BYTES)));
    } finally {
      await call(container.unpause());
    }
    const left = processLines(run.output, '@@VERDICT@@left');
    const output = testOutput(run.output);
    for (const name of notFileLines(run.output)) {
      rewards[name === 'reward.txt' ? 'rewardTxt' : 'rewardJson'] = null;
      if (!rewards.notFiles.includes(name)) rewards.notFiles.push(name);
    }
    if (run.exitCode >= 128) return { kind: 'workspace_fault', fault: 'runner_killed', output, skipped, report };
    if (left.length > 0) return { kind: 'workspace_fault', fault: 'leftover_processes', output, skipped, report };
    return { kind: 'finished', exitCode: run.exitCode, rewardTxt: rewards.rewardTxt, rewardJson: rewards.rewardJson, rewardNotFile: rewards.notFiles, output, skipped, environment: 'task', report };
  }
}

/** test.sh's own output: what follows the script's READY line, without the script's own lines. */
function testOutput(output: string): string {
  const at = output.indexOf(READY);
  const own = at >= 0 ? output.slice(at + READY.length) : output;
  return own
    .split('\n')
    .filter((line) => !line.startsWith('@@VERDICT@@left '))
    .join('\n');
}

/** Whether a user (a name, uid, `name:group`) is root, as a container resolves it; '' is the image's default, root. */
function isRoot(user: string): boolean {
  const name = user.split(':')[0]!;
  return name === '' || name === 'root' || name === '0';
}

async function readFileFromTar(stream: Readable, name: string): Promise<string> {
  const extract = tarStream.extract();
  stream.pipe(extract);
  let text = '';
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
    if (entry.header.name === name && text === '') text = Buffer.concat(chunks).subarray(0, 1 << 20).toString('utf8');
  }
  return text;
}
