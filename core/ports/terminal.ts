/**
 * The workspace-backend port of the `terminal` verifier: "run this Harbor task's tests against this
 * episode's environment, under these limits, and give back what the runner saw". services/terminal
 * has the local bubblewrap backend; a container backend (Docker Engine API), a Kubernetes
 * `pods/exec` one or an E2B one implements the same contract, one file each
 * (verifiers/terminal/README.md, "The backend contract"; test/terminal/contract.ts is it as a suite).
 */

/**
 * Where test.sh may reach the network: Harbor's `network_mode` values. `[verifier] network_mode` /
 * `allowed_hosts` when the task gives them, else `[environment] network_mode`, else
 * `allow_internet = false` → `no-network`.
 */
export interface NetworkPolicy {
  mode: 'public' | 'no-network' | 'allowlist';
  /** Hostnames or IPv4 addresses, for `allowlist` only. */
  allowedHosts: string[];
}

/**
 * A Harbor task as a backend needs it: its `tests/` files and what task.toml (and
 * environment/Dockerfile) say about where and how they run. core/harbor-task.ts builds it, from a
 * task folder or a label.
 */
export interface HarborTask {
  id: string;
  /** `tests/` relative path → content (text from a label, bytes from a task folder); holds `test.sh`. */
  tests: Record<string, string | Uint8Array>;
  /**
   * Where test.sh runs and where a workdir archive is unpacked: `[environment] workdir`, else the
   * last `WORKDIR` of `environment/Dockerfile`; null when neither says: the environment's own
   * (a container's working directory; the bwrap backend's `terminal.defaults.workdir`).
   */
  workdir: string | null;
  /** `[verifier] user` (a name or a uid); null: the environment's default user. */
  user: string | number | null;
  /** `[verifier] env`, values resolved (core/harbor-task.ts: no host variable is passed in). */
  env: Record<string, string>;
  /** `[environment] docker_image`; null: the image built from `environment/Dockerfile`. */
  image: string | null;
  /** `environment/Dockerfile`'s text, or null. */
  dockerfile: string | null;
  /** The task's `environment/` folder on disk (a build context), when it is a folder with one; else null. */
  environmentDir: string | null;
  /** What task.toml says about the network, null when it says nothing (the backend's configured default: off). */
  network: NetworkPolicy | null;
  /** [verifier].timeout_sec: wall time of the test run (Harbor's default 600). */
  timeoutSec: number;
  /** [environment].cpus, memory_mb, storage_mb. */
  cpus: number;
  memoryMb: number;
  storageMb: number;
  /**
   * What the task's tests need of their environment, read from their text alone
   * (core/harbor-task.ts): the commands test.sh runs by name (its interpreter first), those that
   * download (package managers, `curl` of another host, `uvx` …), the well-known third-party
   * Python packages the tests/ files import, and the literal folders test.sh puts on its PATH
   * (`export PATH="/opt/verifier-venv/bin:$PATH"`), where a command by name may be found too. A backend checks them before running test.sh and
   * reports what is missing, so a missing tool, package or network is ABORTED, not a quiet 0.
   */
  needs: { commands: string[]; network: string[]; pythonModules: string[]; searchPath: string[] };
  /**
   * `[verdict] episode_services`: the names of the processes the tests need from the episode (a
   * server it was asked to start). In a shared environment these, and what they fork, are kept;
   * every other process the episode left is stopped before the tests. Empty: all are stopped.
   */
  services: string[];
  /**
   * A service on the machine itself that the tests query (`127.0.0.1:8080`, from an address in
   * tests/) and that nothing in tests/ starts — no background job in a test script, no subprocess,
   * thread or server in the test code: one the episode was asked to leave running. Only the
   * episode's running environment has it, so a task sent as files is ABORTED, never a quiet 0 for a
   * solved episode (core/harbor-task.ts, localServiceQueried). Null when none.
   */
  localService: string | null;
  /**
   * A Harbor feature the task uses that changes where or on what the tests run and that Verdict does
   * not run — `[verifier] environment_mode = "separate"` (the tests in a clean verifier image of
   * their own, with only the episode's collected artifacts), `[[verifier.collect]]` hooks, a
   * multi-step task's `[[steps]]` (each step's tests under steps/<name>/tests/) — named as
   * task.toml spells it; null when none. Such a task is ABORTED: running its tests on the episode's
   * files would be a quiet 0 for a solved episode.
   */
  unsupported: string | null;
}

/**
 * The episode's files, given in one of three ways:
 *  - `{tar, root: 'workdir'}`: a tar (or tar.gz) of the workdir;
 *  - `{tar, root: 'filesystem'}`: a whole-filesystem change set, members rooted at `/`
 *    (`tmp/answer.txt`, `home/user/app/main.py`) — `docker export` output, or the files
 *    `podman diff` / the engine's diff API lists, archived from `/`;
 *  - `{path, root}`: the same, as a file (`.tar`, `.tar.gz`) or folder under `terminal.workspaceRoot`;
 *  - `{container}`: the episode's still-running environment itself (Harbor's "shared" mode), named
 *    by an engine endpoint of the config and a container; only a container backend takes it.
 */
export type WorkspaceRoot = 'workdir' | 'filesystem';
export type WorkspaceSource =
  | { tar: Uint8Array; root: WorkspaceRoot }
  | { path: string; root: WorkspaceRoot }
  | { container: { endpoint: string; id: string } };

/** What a container backend saw of the episode's environment before the tests, for `details`. */
export interface EnvironmentReport {
  /** Verdict-deciding paths the episode added or changed (interpreters, site-packages, test runners, /tests, /logs/verifier). */
  tampered: string[];
  /** Processes the episode left running when the tests started (`<pid> <name>`), and whether they were stopped. */
  processes: string[];
  processesStopped: boolean;
  /** The episode's processes kept as services the task declared (`<pid> <name>`), when any. */
  services?: string[];
  /**
   * How the reward files were read from the paused container: `host`, from the engine's storage on
   * this machine (checked to be this container's), or `archive`, through the engine's archive API.
   */
  rewardRead?: 'host' | 'archive';
}

/** What the runner saw once test.sh ended. Only `WorkspaceError` (thrown) is infrastructure. */
export type WorkspaceRun =
  | {
      kind: 'finished';
      /** test.sh's exit code. */
      exitCode: number;
      /** The reward files as test.sh left them (absent when not written; bounded in size). */
      rewardTxt: string | null;
      rewardJson: string | null;
      /** Reward paths where something other than a regular file stands (a folder, a link, a fifo). */
      rewardNotFile: Array<'reward.txt' | 'reward.json'>;
      /** The tail of test.sh's output, for the reason. */
      output: string;
      /** Members of the archive that were not unpacked (outside the root, links out, devices). */
      skipped: string[];
      /**
       * Where test.sh ran: `task`, the task's own image or the episode's container; `host`, a stand-in
       * for it (the bwrap backend's host /usr). A test.sh that wrote no reward file is the dataset's
       * defect (INVALID) only in the task's own environment.
       */
      environment: 'task' | 'host';
      /** A container backend's report on the episode's environment (tampered paths, its processes). */
      report?: EnvironmentReport;
    }
  /**
   * The workspace broke the run itself: test.sh killed or stopped, processes outlived test.sh, a
   * pytest run ended without returning (Verdict's Python start-up hook saw it start, never end), the disk filled, or (a container backend's tamper check, by policy) the episode changed a path
   * that decides the verdict.
   */
  | { kind: 'workspace_fault'; fault: 'runner_killed' | 'leftover_processes' | 'tests_exited_early' | 'disk_full' | 'environment_tampered'; output: string; skipped: string[]; report?: EnvironmentReport }
  /** The archive expands past the limits (bytes, members, nesting): the policy's workspace, a 0. */
  | { kind: 'too_large'; what: string }
  /**
   * The environment lacks what the task's tests need (`task.needs`), found before test.sh ran:
   * commands not on its PATH (the shebang's interpreter included), Python packages it cannot
   * import, and the downloading commands when the run has no network. Never the policy's doing
   * nor the dataset's: ABORTED.
   */
  | { kind: 'environment_lacks'; commands: string[]; pythonModules: string[]; network: string[] };

export type HarborTaskLookup = { kind: 'found'; task: HarborTask } | { kind: 'missing' } | { kind: 'broken'; error: string };

export interface TerminalPort {
  run(task: HarborTask, workspace: WorkspaceSource, signal: AbortSignal): Promise<WorkspaceRun>;
  /** The task of that id in `terminal.taskDir`; null when none is configured. */
  task(id: string): Promise<HarborTaskLookup | null>;
  /** Task defaults where task.toml says nothing. */
  defaults: Pick<HarborTask, 'timeoutSec' | 'cpus' | 'memoryMb' | 'storageMb'>;
  /** A container backend's engine endpoints, which `{container: {endpoint}}` may name; absent when it has none. */
  endpoints?: readonly string[];
}

/** The backend could not run the tests (no start, archive unreadable, wall time, shutdown): ABORTED. */
export class WorkspaceError extends Error {
  constructor(
    readonly reason: string,
    message: string = reason,
  ) {
    super(message);
    this.name = 'WorkspaceError';
  }
}
