import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import * as tarStream from 'tar-stream';
import { WorkspaceError, type EnvironmentReport, type HarborTask, type HarborTaskLookup, type TerminalPort, type WorkspaceRoot, type WorkspaceRun, type WorkspaceSource } from '../../../core/ports/terminal';
import type { DockerConfigSection, TerminalConfigSection } from '../config';
import { readArchive, type WorkspaceEntry } from '../tar';
import { loadHarborTask } from '../tasks';
import { hookPthLine } from '../python-hook';
import { freshTar, isRealFolder, PYTHON_HOOK_AT, readRewardFiles, testsTar, type RewardFiles } from './archive';
import { taskImageTag } from './build';
import { applyDeletions } from './deletions';
import { engineClients, engineError } from './engine';
import { execEnded, execIn, type EndedExec, type ExecResult } from './exec';
import { readStashOnHost } from './host-read';
import { afterReady, CLEANUP, FALLBACK, FUSED, LACKS, notFileLines, PREPARE, processLines, READY, readyPid, RESET, RUN_TESTS, SESSIONS_LINE, sessionsCutShort, STASH } from './processes';
import { keptServices, servicesEnv } from './services';
import { replacedCommands, replacedTools, shadowedCommands, SYSTEM_BIN_DIRS, tamperedPaths, type FilesystemChange } from './tamper';

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

/**
 * Where the reward files may be read on this host (host-read.ts): the container's MergedDir, once
 * the inspect that names it is in (null: not offered, or the endpoint's hostRead is off), and what
 * to do when it proves not to be this container's (the cached path is dropped: the next
 * verification inspects again).
 */
interface HostPath {
  mergedDir: Promise<string | null>;
  forget: () => void;
}

interface ImageFacts {
  workdir: string;
  user: string;
}

export class DockerWorkspace implements TerminalPort {
  readonly defaults: TerminalPort['defaults'];
  readonly endpoints: string[];
  private readonly docker: DockerConfigSection;
  private readonly clients: Map<string, Docker>;
  private readonly slots = new Map<string, Slots>();
  private readonly tasks = new Map<string, HarborTaskLookup>();
  private readonly images = new Map<string, ImageFacts>();
  private readonly containers = new Map<string, { user: string; network: boolean; mergedDir: string | null }>();
  /** Fresh containers' removals in flight. */
  private readonly removing = new Set<Promise<void>>();
  private readonly maxRemovals: number;

  constructor(private readonly config: TerminalConfigSection) {
    if (config.docker === undefined) throw new Error('terminal.docker: required by the docker backend');
    this.docker = config.docker;
    this.defaults = config.defaults;
    this.clients = engineClients(config.docker);
    this.endpoints = [...this.clients.keys()];
    for (const [name, endpoint] of Object.entries(config.docker.endpoints)) this.slots.set(name, new Slots(endpoint.maxConcurrency));
    this.maxRemovals = Object.values(config.docker.endpoints).reduce((sum, e) => sum + e.maxConcurrency, 0);
  }

  /** Waits for the removals left off the result path: no fresh container leaks. */
  async close(): Promise<void> {
    await Promise.all([...this.removing]);
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
    // Tests that query a service nothing in tests/ starts need the episode's server running, and
    // this endpoint stops the episode's processes before the tests: a quiet 0 for a solved episode.
    if (this.docker.episodeProcesses === 'stop' && task.services.length === 0 && task.localService !== null)
      throw new WorkspaceError(
        'episode_services_unavailable',
        `the tests query ${task.localService}, which nothing in tests/ starts, and the episode's processes are stopped before them: name its server process in the task's [verdict] episode_services (or set this backend's episodeProcesses: keep)`,
      );
    const key = `${endpoint}/${name}`;
    let facts = this.containers.get(key);
    if (!facts) {
      const info = await container.inspect().catch((error: unknown) => {
        throw engineError(error, endpoint, what);
      });
      if (!info.State.Running || info.State.Paused) throw new WorkspaceError('environment_unavailable', `${what} on engine endpoint "${endpoint}" is ${info.State.Status}, not running`);
      facts = { user: info.Config?.User ?? '', network: info.HostConfig?.NetworkMode !== 'none', mergedDir: this.mergedDirOf(endpoint, info) };
      if (this.containers.size >= 10_000) this.containers.clear();
      this.containers.set(key, facts);
    }
    const frozen = { paused: false };
    const user = task.user === null ? facts.user : String(task.user);
    const host: HostPath = {
      mergedDir: Promise.resolve(facts.mergedDir),
      forget: () => {
        this.containers.delete(key);
      },
    };
    try {
      return await this.verify(docker, endpoint, container, what, { ...task, user: user === '' ? null : user }, [], { stop: this.docker.episodeProcesses === 'stop', network: facts.network }, frozen, host, signal);
    } finally {
      if (this.docker.afterShared === 'remove') {
        // Removed as it is, paused or not: nothing of it runs on.
        this.containers.delete(key);
        await container.remove({ force: true }).catch(() => {});
      } else if (frozen.paused) {
        // Unpaused before the result is answered (~20 ms): the episode's container is running again
        // when its reward arrives, so whatever the trainer or another replica does with it next
        // (a second verification, an exec, a log copy) does not find it frozen.
        await container.unpause().catch(() => {});
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
    // Removals in flight are bounded: no more of them than the engines run tests at once.
    while (this.removing.size >= this.maxRemovals) await Promise.race(this.removing);
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
      // Its MergedDir asked while the workspace goes in; only the reward read waits for it.
      const host: HostPath = {
        mergedDir: this.docker.endpoints[endpoint]?.hostRead === false ? Promise.resolve(null) : container.inspect().then((info) => this.mergedDirOf(endpoint, info), () => null),
        forget: () => {},
      };
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
      // A command test.sh runs, replaced or shadowed: looked up in the image before the change set goes in.
      const binFiles = placed.filter((e) => e.kind !== 'dir').map((e) => where(e.path));
      tampered.push(...(await replacedCommands(binFiles, task.needs.commands, (names) => this.imageCommands(docker, container, names))));
      tampered.push(...(await replacedTools(binFiles, (paths) => this.imagePaths(docker, container, paths))));
      const entries = placed.filter((e) => !RESERVED.test(where(e.path)));
      await applyDeletions(docker, container, workspace.deletions);
      await container.putArchive(await freshTar(entries, base, uid, task.tests), { path: '/' });
      const prepared: EnvironmentReport = { tampered, processes: [], processesStopped: false };
      return await this.verify(docker, endpoint, container, what, { ...task, workdir, user: user === '' ? null : user }, workspace.skipped, { stop: true, network, prepared }, { paused: false }, host, signal);
    } catch (error) {
      throw engineError(error, endpoint, what);
    } finally {
      // Removed as it is (paused: nothing runs on), off the result path; bounded by the wait above.
      const removing: Promise<void> = container.remove({ force: true }).then(
        () => {},
        () => {},
      );
      this.removing.add(removing);
      void removing.then(() => this.removing.delete(removing));
    }
  }

  /**
   * The container's MergedDir as the inspect names it, where the endpoint's hostRead allows a host
   * read and that folder exists on this machine (a remote engine's does not: no host read is tried,
   * and nothing is inspected again for it).
   */
  private mergedDirOf(endpoint: string, info: Docker.ContainerInspectInfo): string | null {
    if (this.docker.endpoints[endpoint]?.hostRead === false) return null;
    const merged = (info.GraphDriver?.Data as Record<string, unknown> | undefined)?.MergedDir;
    if (typeof merged !== 'string' || !path.isAbsolute(merged)) return null;
    return lstatSync(merged, { throwIfNoEntry: false })?.isDirectory() ? merged : null;
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
   * The verification proper, in either mode: one exec (`verifyFused`), or three where the fused
   * script cannot run test.sh as the task's user itself. `stop`: kill the processes found before
   * the tests (else they are kept, a service the tests need, and only reported); `network`: whether
   * the container has one (a test.sh that downloads needs it). `frozen.paused` is set once the
   * container is left paused for the caller to unpause or remove.
   */
  private async verify(
    docker: Docker,
    endpoint: string,
    container: Docker.Container,
    what: string,
    task: HarborTask,
    skipped: string[],
    mode: { stop: boolean; network: boolean; prepared?: EnvironmentReport },
    frozen: { paused: boolean },
    host: HostPath,
    signal: AbortSignal,
  ): Promise<WorkspaceRun> {
    const fused = await this.verifyFused(docker, endpoint, container, what, task, skipped, mode, frozen, host, signal);
    if (fused !== 'fallback') return fused;
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
      const tampered = await this.tampered(docker, container, call, task.needs.commands);
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
    let head = '';
    // The READY pid is test.sh itself here (RUN_TESTS execs it).
    const limits = this.limits(container, task, signal, () => readyPid(head), 0, () => root(CLEANUP, cleanupEnv));
    let test: ExecResult;
    try {
      test = await call(
        execIn(docker, container, {
          cmd: ['sh', '-c', RUN_TESTS, 'verdict', ...task.needs.commands],
          ...(task.user !== null ? { user: String(task.user) } : {}),
          ...(task.workdir !== null ? { workdir: task.workdir } : {}),
          env: [...Object.entries(task.env).map(([k, v]) => `${k}=${v}`), `PYTHONPYCACHEPREFIX=${PYCACHE}`, `VERDICT_MODULES=${task.needs.pythonModules.join(' ')}`],
          tailBytes: OUTPUT_TAIL_BYTES,
          dialog: (text) => {
            head = text;
          },
        }),
      );
    } finally {
      limits.end();
    }
    if (limits.failure) {
      const cut = await this.afterCut(limits.failure, await limits.cutting, test.output, skipped, report);
      if (cut) return cut;
      throw limits.failure;
    }

    // Frozen (cgroup freezer) from the moment test.sh ended: no process in the container can
    // rewrite a reward file between the write and the read.
    await call(container.pause());
    let rewards;
    try {
      rewards = await call(container.getArchive({ path: '/logs/verifier' }).then((stream) => readRewardFiles(stream as unknown as Readable, MAX_REWARD_BYTES, 'verifier')));
    } finally {
      await call(container.unpause());
    }
    const cleanup = await root(CLEANUP, cleanupEnv);
    const left = processLines(cleanup.output, 'left');
    const lacks = lacksOf(test.head);
    if (lacks !== null) return lacks;
    const output = afterReady(test.output);
    if (test.exitCode >= 128) return { kind: 'workspace_fault', fault: 'runner_killed', output, skipped, report };
    if (left.length > 0) return { kind: 'workspace_fault', fault: 'leftover_processes', output, skipped, report };
    return { kind: 'finished', exitCode: test.exitCode, rewardTxt: rewards.rewardTxt, rewardJson: rewards.rewardJson, rewardNotFile: rewards.notFiles, output, skipped, environment: 'task', report };
  }

  /** The episode's changes to verdict-deciding paths (the diff API). Podman answers the diff of a missing container with a 500: the inspect then names it. */
  /** Which of `names` a fresh container, before the change set goes in, has in its system bin folders. */
  private async imageCommands(docker: Docker, container: Docker.Container, names: string[]): Promise<ReadonlySet<string>> {
    const script = `for n in "$@"; do for d in ${SYSTEM_BIN_DIRS.join(' ')}; do if [ -e "$d/$n" ] || [ -L "$d/$n" ]; then echo "@@HAS@@ $n"; break; fi; done; done`;
    const found = await execIn(docker, container, { cmd: ['sh', '-c', script, 'verdict', ...names], user: '0', tailBytes: 64 << 10 });
    return new Set(found.output.split('\n').filter((line) => line.startsWith('@@HAS@@ ')).map((line) => line.slice(8).trim()));
  }

  private async tampered(docker: Docker, container: Docker.Container, call: <T>(promise: Promise<T>) => Promise<T>, commands: readonly string[]): Promise<string[]> {
    const changes = (await container.changes().catch(async (error: unknown) => {
      await call(container.inspect());
      return call(Promise.reject(error));
    })) as FilesystemChange[] | null;
    const shadows = await shadowedCommands(changes, commands, (candidates, added) => call(this.otherCommands(docker, container, candidates, added)));
    return [...tamperedPaths(changes, commands), ...shadows];
  }

  /** Which of `paths` a fresh container, before the change set goes in, has. */
  private async imagePaths(docker: Docker, container: Docker.Container, paths: string[]): Promise<ReadonlySet<string>> {
    const script = 'for p in "$@"; do if [ -e "$p" ] || [ -L "$p" ]; then echo "@@HAS@@ $p"; fi; done';
    const found = await execIn(docker, container, { cmd: ['sh', '-c', script, 'verdict', ...paths], user: '0', tailBytes: 64 << 10 });
    return new Set(found.output.split('\n').filter((line) => line.startsWith('@@HAS@@ ')).map((line) => line.slice(8).trim()));
  }

  /** Which of the `candidates` (paths in the system bin folders) have another command of their name there, neither the same file nor one of the `added`. */
  private async otherCommands(docker: Docker, container: Docker.Container, candidates: string[], added: string[]): Promise<ReadonlySet<string>> {
    const script = `for p in "$@"; do n=\${p##*/}; for d in ${SYSTEM_BIN_DIRS.join(' ')}; do q=$d/$n; [ "$q" = "$p" ] && continue; { [ -e "$q" ] || [ -L "$q" ]; } || continue; [ "$q" -ef "$p" ] && continue; case " $ADDED " in *" $q "*) continue ;; esac; echo "@@OTHER@@ $p"; break; done; done`;
    const found = await execIn(docker, container, { cmd: ['sh', '-c', script, 'verdict', ...candidates], user: '0', env: [`ADDED=${added.join(' ')}`], tailBytes: 64 << 10 });
    return new Set(found.output.split('\n').filter((line) => line.startsWith('@@OTHER@@ ')).map((line) => line.slice(10).trim()));
  }

  /**
   * What cuts a test run short, by killing what it started (`cleanup`; its exec then ends): the
   * wall time (`timeout_sec`), a cancel, and test.sh stopped by the workspace. The last is seen
   * through the engine's process table (the top API, no exec): from the second after test.sh
   * started, once a second, `root` (the READY pid) and, `depth` levels down, its only live child —
   * that is test.sh itself, and the fused script above it. Nothing in test.sh's own flow resumes a
   * stopped test.sh, so one look decides, whatever the machine's load: 0 `runner_killed` at once
   * rather than at its wall time (as the bwrap runner's WUNTRACED). A process further down that is
   * stopped may be resumed by test.sh (a job it stops and continues): it is left to the wall time,
   * where a stopped leftover is the workspace's doing too (`afterCut`). A run that ends within the
   * second costs nothing.
   */
  private limits(container: Docker.Container, task: HarborTask, signal: AbortSignal, root: () => string | null, depth: 0 | 1, cleanup: () => Promise<ExecResult>) {
    const state = {
      failure: null as WorkspaceError | null,
      cutting: Promise.resolve(null) as Promise<ExecResult | null>,
      end: () => {},
    };
    const cut = (error: WorkspaceError) => {
      if (state.failure) return;
      state.failure = error;
      state.cutting = cleanup().catch(() => null);
    };
    const timer = setTimeout(() => cut(new WorkspaceError('verifier_timeout', `test.sh ran past ${task.timeoutSec} s of wall time`)), task.timeoutSec * 1000);
    const onAbort = () => cut(new WorkspaceError(String(signal.reason ?? 'cancelled')));
    signal.addEventListener('abort', onAbort, { once: true });
    let looking = false;
    const watch = setInterval(() => {
      const pid = root();
      if (pid === null || looking || state.failure) return;
      looking = true;
      (container.top({ ps_args: 'pid,ppid,state,comm' }) as Promise<{ Processes?: string[][] }>)
        .then(
          (table) => {
            const stopped = stoppedOnChain(table.Processes ?? [], pid, depth);
            if (stopped !== null) cut(new WorkspaceError(STOPPED, `test.sh (process ${stopped}) was stopped`));
          },
          () => {},
        )
        .finally(() => {
          looking = false;
        });
    }, STOP_CHECK_MS);
    state.end = () => {
      clearTimeout(timer);
      clearInterval(watch);
      signal.removeEventListener('abort', onAbort);
    };
    return state;
  }

  /**
   * A run cut short that is the workspace's doing after all: test.sh (or what it waits on) stopped
   * (SIGSTOP), or blocked writing a reward path that is not a file (a fifo). Null: the cut stands.
   */
  private async afterCut(failure: WorkspaceError, cleaned: ExecResult | null, output: string, skipped: string[], report: EnvironmentReport): Promise<WorkspaceRun | null> {
    if (failure.reason === STOPPED) return { kind: 'workspace_fault', fault: 'runner_killed', output, skipped, report };
    if (failure.reason !== 'verifier_timeout' || cleaned === null) return null;
    const notFiles = notFileLines(cleaned.output);
    if (notFiles.length > 0) return { kind: 'finished', exitCode: 124, rewardTxt: null, rewardJson: null, rewardNotFile: notFiles, output, skipped, environment: 'task', report };
    if (processLines(cleaned.output, 'left').some((p) => p.state === 'T' || p.state === 't')) return { kind: 'workspace_fault', fault: 'runner_killed', output, skipped, report };
    return null;
  }

  /**
   * The verification in one exec (processes.ts FUSED): the same steps and guarantees as the
   * three-exec path, less two execs, test.sh dropped to the task's user by the script. The diff
   * is taken while the exec starts (the script waits for its verdict before it changes anything),
   * the exit code asked while the container is paused, and the reward files read, paused, from
   * where the script moved them once test.sh and everything it started were gone. `fallback`: the
   * script could not drop to the user (no `setpriv`, a user /etc/passwd lacks), nothing changed.
   */
  private async verifyFused(
    docker: Docker,
    endpoint: string,
    container: Docker.Container,
    what: string,
    task: HarborTask,
    skipped: string[],
    mode: { stop: boolean; network: boolean; prepared?: EnvironmentReport },
    frozen: { paused: boolean },
    host: HostPath,
    signal: AbortSignal,
  ): Promise<WorkspaceRun | 'fallback'> {
    const call = <T>(promise: Promise<T>): Promise<T> =>
      promise.catch((error: unknown) => {
        throw engineError(error, endpoint, what);
      });
    if (mode.prepared && mode.prepared.tampered.length > 0 && this.docker.tamper === 'zero') return { kind: 'workspace_fault', fault: 'environment_tampered', output: '', skipped, report: mode.prepared };
    if (task.needs.network.length > 0 && !mode.network) return { kind: 'environment_lacks', commands: [], pythonModules: [], network: task.needs.network };
    if (signal.aborted) throw new WorkspaceError(String(signal.reason ?? 'cancelled'));

    // The diff while the exec starts; its failure is the engine's (or the container's) to name.
    let diffFailure: WorkspaceError | null = null;
    const diff: Promise<string[] | null> = mode.prepared
      ? Promise.resolve(mode.prepared.tampered)
      : this.tampered(docker, container, call, task.needs.commands).catch((error: unknown) => {
          diffFailure = error instanceof WorkspaceError ? error : engineError(error, endpoint, what);
          return null;
        });
    const zeroOf = (tampered: string[]) => tampered.length > 0 && this.docker.tamper === 'zero';
    // Once the script has reset /tests and /logs/verifier (and stopped the episode's processes),
    // the tests go in and it is told to go on.
    let answered = false;
    let putFailure: unknown = null;
    const dialog = (text: string, write: (text: string) => void) => {
      if (answered || !text.includes(RESET)) return;
      answered = true;
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
    const episodeOf = (text: string) => processLines(text.split(RESET)[0]!, 'episode');
    let head = '';
    const limits = this.limits(
      container,
      task,
      signal,
      () => readyPid(head),
      // The READY pid is the fused script's; test.sh is its one child.
      1,
      () => {
        // The declared services stay, as PREPARE/FUSED kept them; with STOP=0 every episode process too.
        const services = (keptServices(head.split(RESET)[0]!).services ?? []).map((p) => p.split(' ')[0]!);
        const keep = [...services, ...(mode.stop ? [] : episodeOf(head).map((p) => p.pid))].join(' ');
        return call(execIn(docker, container, { cmd: ['sh', '-c', CLEANUP], user: '0', workdir: '/', env: [`KEEP=${keep}`, `PYTHONPYCACHEPREFIX=${PYCACHE}`], tailBytes: 64 << 10 }));
      },
    );
    const user = task.user === null || isRoot(String(task.user)) ? null : String(task.user);
    const nonce = randomBytes(16).toString('hex');
    let run: EndedExec;
    try {
      run = await call(
        execEnded(docker, container, {
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
            `VERDICT_PTH=${hookPthLine(PYTHON_HOOK_AT)}`,
            `VERDICT_NONCE=${nonce}`,
            ...(user !== null ? [`VERDICT_USER=${user}`, `VERDICT_HOME=${'HOME' in task.env ? 1 : 0}`] : []),
          ],
          tailBytes: OUTPUT_TAIL_BYTES,
          stdin: true,
          // The tamper verdict, written as soon as the diff is in: the script reads it before it changes anything.
          started: (write) => {
            if (!mode.prepared) void diff.then((tampered) => write(tampered !== null && !zeroOf(tampered) ? 'go\n' : 'stop\n'));
          },
          dialog: (text, write) => {
            head = text;
            dialog(text, write);
          },
        }),
      );
    } finally {
      limits.end();
    }
    head = run.head;
    // Printed before test.sh could run (no READY line yet); the engine may add its own line about the stdin written to an ended exec.
    if (head.includes(FALLBACK) && !head.includes(READY) && (await call(run.exitCode())) === 6) return 'fallback';
    const tampered = (await diff) ?? [];
    const episode = mode.prepared ? [] : episodeOf(head);
    const report: EnvironmentReport = mode.prepared ?? { tampered, processes: episode.map((p) => `${p.pid} ${p.name}`), processesStopped: mode.stop && episode.length > 0, ...keptServices(head.split(RESET)[0]!) };
    if (limits.failure) {
      const cut = await this.afterCut(limits.failure, await limits.cutting, testOutput(run.output), skipped, report);
      if (cut) return cut;
      throw limits.failure;
    }
    if (diffFailure !== null) throw diffFailure;
    if (putFailure !== null) throw engineError(putFailure, endpoint, what);
    const zero = zeroOf(tampered);
    const reset = mode.prepared !== undefined || head.includes(RESET);
    if (!reset && zero) return { kind: 'workspace_fault', fault: 'environment_tampered', output: '', skipped, report };
    if (!reset) {
      const exitCode = await call(run.exitCode());
      if (exitCode === 4) throw new WorkspaceError('environment_unavailable', `${what}: the episode's processes survived being killed: ${report.processes.slice(0, 10).join(', ')}`);
      throw new WorkspaceError('environment_unavailable', `${what}: /tests and /logs/verifier could not be reset (exit ${exitCode}): ${run.output.slice(-300)}`);
    }
    const lacks = lacksOf(mode.prepared ? head : head.slice(head.indexOf(RESET) + RESET.length));
    if (lacks !== null) return lacks;
    // Frozen (cgroup freezer) before the read; the exit code asked meanwhile.
    const [exitCode, read] = await Promise.all([
      call(run.exitCode()),
      call(container.pause()).then(() => {
        frozen.paused = true;
        return this.readStash(container, host, nonce, call);
      }),
    ]);
    const rewards = read.rewards;
    const left = processLines(run.output, '@@VERDICT@@left');
    const output = testOutput(run.output);
    for (const name of notFileLines(run.output)) {
      rewards[name === 'reward.txt' ? 'rewardTxt' : 'rewardJson'] = null;
      if (!rewards.notFiles.includes(name)) rewards.notFiles.push(name);
    }
    const readReport: EnvironmentReport = { ...report, rewardRead: read.from };
    if (exitCode >= 128) return { kind: 'workspace_fault', fault: 'runner_killed', output, skipped, report: readReport };
    if (left.length > 0) return { kind: 'workspace_fault', fault: 'leftover_processes', output, skipped, report: readReport };
    // A pytest run that started and never ended: the tests' own process was cut short (os._exit in the workspace's code).
    if (sessionsCutShort(run.output) > 0) return { kind: 'workspace_fault', fault: 'tests_exited_early', output, skipped, report: readReport };
    return { kind: 'finished', exitCode, rewardTxt: rewards.rewardTxt, rewardJson: rewards.rewardJson, rewardNotFile: rewards.notFiles, output, skipped, environment: 'task', report: readReport };
  }

  /**
   * The stash of a paused container: from the engine's storage on this host when its MergedDir is
   * known and the nonce there is this run's (host-read.ts), else through the archive API.
   */
  private async readStash(container: Docker.Container, host: HostPath, nonce: string, call: <T>(promise: Promise<T>) => Promise<T>): Promise<{ rewards: RewardFiles; from: 'host' | 'archive' }> {
    const mergedDir = await host.mergedDir;
    if (mergedDir !== null) {
      const got = await readStashOnHost(mergedDir, STASH, nonce, MAX_REWARD_BYTES).catch(() => null);
      if (got?.kind === 'read') return { rewards: got.rewards, from: 'host' };
      host.forget();
    }
    // The stash's stat first (the container is paused: it cannot change before the read).
    const stat = (await call(container.infoArchive({ path: STASH }))) as { headers?: Record<string, string | undefined> };
    if (!isRealFolder(stat.headers?.['x-docker-container-path-stat'], STASH)) return { rewards: { rewardTxt: null, rewardJson: null, notFiles: ['reward.txt', 'reward.json'] }, from: 'archive' };
    const rewards = await call(container.getArchive({ path: STASH }).then((stream) => readRewardFiles(stream as unknown as Readable, MAX_REWARD_BYTES, path.posix.basename(STASH))));
    return { rewards, from: 'archive' };
  }
}

/** A WorkspaceError reason used only inside this backend: the test run was stopped (its cut ends as runner_killed). */
const STOPPED = 'test_stopped';
/** How often a running test's process chain is looked at for a stop (the first look a second in). */
const STOP_CHECK_MS = 1000;

/**
 * The top API's rows (`pid ppid state comm`): the stopped process among `root` and, at most
 * `levels` down, each one's only live child (the fused script and test.sh), or null.
 */
function stoppedOnChain(rows: readonly string[][], root: string, levels: number): string | null {
  let pid = root;
  for (let depth = 0; depth <= levels; depth++) {
    const row = rows.find((r) => r[0] === pid);
    if (row === undefined) return null;
    if (row[2] === 'T') return pid;
    const children = rows.filter((r) => r[1] === pid && r[2] !== 'Z');
    if (children.length !== 1) return null;
    pid = children[0]![0]!;
  }
  return null;
}

/** The `lacks` line a script printed (what test.sh needs and the environment lacks), as a run. */
function lacksOf(text: string): WorkspaceRun | null {
  if (!text.startsWith(LACKS)) return null;
  const lacks = text.slice(LACKS.length).split('\n', 1)[0]!.trim().split(' ');
  return { kind: 'environment_lacks', commands: lacks.filter((w) => w.startsWith('cmd:')).map((w) => w.slice(4)), pythonModules: lacks.filter((w) => w.startsWith('mod:')).map((w) => w.slice(4)), network: [] };
}

/** test.sh's own output: what follows the script's READY line, without the script's own lines. */
function testOutput(output: string): string {
  // The script's sessions line, printed after test.sh's output, which may not end with a newline.
  const at = output.lastIndexOf(SESSIONS_LINE);
  const end = at < 0 ? -1 : output.indexOf('\n', at);
  const text = at < 0 ? output : output.slice(0, at) + (end < 0 ? '' : output.slice(end + 1));
  return afterReady(text)
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
