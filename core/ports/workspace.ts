/**
 * The workspace-backend port of the `terminal` verifier: "run this Harbor task's tests against this
 * final workspace, under these limits, and give back what the runner saw". services/workspace has
 * the local bubblewrap backend; a remote one (the episode's own microVM) implements the same
 * contract (verifiers/terminal/README.md, "The backend contract").
 */

/** A Harbor task as the runner needs it: its `tests/` files and the task.toml limits. */
export interface HarborTask {
  id: string;
  /** `tests/` relative path → content; holds `test.sh`. */
  tests: Record<string, string>;
  /** [verifier].timeout_sec: wall time of the test run. */
  timeoutSec: number;
  /** [environment].cpus, memory_mb, storage_mb. */
  cpus: number;
  memoryMb: number;
  storageMb: number;
}

/**
 * The episode's final state: a workspace archive or folder (a fresh environment gets it), or the
 * episode's own still-running container on a configured engine endpoint (shared mode, Harbor's default).
 */
export type WorkspaceSource = { tar: Uint8Array } | { path: string } | { environment: { endpoint: string; container: string } };

/** What a container backend saw of the episode's environment before the tests, for `details`. */
export interface EnvironmentReport {
  /** Verdict-deciding paths the episode added or changed (interpreters, site-packages, test runners, /tests, /logs/verifier). */
  tampered: string[];
  /** Processes the episode left running when the tests started (`<pid> <name>`), and whether they were stopped. */
  processes: string[];
  processesStopped: boolean;
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
      /** The tail of test.sh's output, for the reason. */
      output: string;
      /** Members of the archive that were not unpacked (outside the root, links out, devices). */
      skipped: string[];
      environment?: EnvironmentReport;
    }
  /** The workspace broke the run itself: the runner was killed, processes outlived test.sh, the disk filled. */
  | { kind: 'workspace_fault'; fault: 'runner_killed' | 'leftover_processes' | 'disk_full' | 'environment_tampered'; output: string; skipped: string[]; environment?: EnvironmentReport }
  /** The archive expands past the limits (bytes or members): the policy's workspace, a 0. */
  | { kind: 'too_large'; what: string };

export type HarborTaskLookup = { kind: 'found'; task: HarborTask } | { kind: 'missing' } | { kind: 'broken'; error: string };

export interface WorkspacePort {
  run(task: HarborTask, workspace: WorkspaceSource, signal: AbortSignal): Promise<WorkspaceRun>;
  /** The task of that id in `terminal.taskDir`; null when none is configured. */
  task(id: string): Promise<HarborTaskLookup | null>;
  /** Task defaults where task.toml says nothing. */
  defaults: Pick<HarborTask, 'timeoutSec' | 'cpus' | 'memoryMb' | 'storageMb'>;
  /** A container backend's engine endpoints, which `{environment: {endpoint}}` may name; absent when it has none. */
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
