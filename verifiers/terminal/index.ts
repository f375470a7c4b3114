import { z } from 'zod';
import { isJsonObject, type JsonObject } from '../../core/json';
import { WorkspaceError, type EnvironmentReport, type HarborTask, type WorkspacePort, type WorkspaceRun, type WorkspaceSource } from '../../core/ports/workspace';
import { aborted, invalid, ok, type Outcome } from '../../core/sample';
import { defineAsync } from '../../core/verifier';

const positive = z.number().positive();
/** The task.toml fields the runner uses, as a label carries them inline. */
const tomlFields = z
  .looseObject({
    verifier: z.looseObject({ timeout_sec: positive.optional() }).optional(),
    environment: z.looseObject({ cpus: positive.optional(), memory_mb: positive.optional(), storage_mb: positive.optional() }).optional(),
  })
  .describe('task.toml as JSON: [verifier] timeout_sec, [environment] cpus, memory_mb, storage_mb (other keys are ignored)');

const testPath = z.string().regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$))[^\0]+$/, 'expected a relative path inside tests/');

export const terminalLabel = z.union([
  z.strictObject({
    task: z
      .strictObject({
        id: z.string().min(1).describe('The task id, named in reasons'),
        tests: z.record(testPath, z.string()).refine((t) => 'test.sh' in t, 'must hold test.sh').describe('The task\'s tests/ folder: relative path → file content'),
        toml: tomlFields.optional(),
      })
      .describe('The Harbor task inline'),
    binary: z.boolean().default(true).describe('Reward 1 only for 1.0 (the recipe\'s binary reward); false: the clamped value'),
  }),
  z.strictObject({
    taskId: z.string().min(1).describe('A Harbor task folder of the configured terminal.taskDir'),
    binary: z.boolean().default(true).describe('Reward 1 only for 1.0; false: the clamped value'),
  }),
]);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const ENDPOINT = /^[a-z][a-z0-9_]*$/;
/** Docker's container names and ids. */
const CONTAINER = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}$/;

/**
 * The episode's final state: `metadata.environment` (its still-running container, shared mode) or
 * `metadata.workspace` (an archive or folder for a fresh environment), exactly one of them.
 */
function readWorkspace(metadata: JsonObject): { ok: true; source: WorkspaceSource } | { ok: false; error: string } {
  const environment = metadata.environment;
  if (environment !== undefined && environment !== null) {
    if (metadata.workspace !== undefined && metadata.workspace !== null) return { ok: false, error: 'metadata: expected one of "environment", "workspace", received both' };
    if (!isJsonObject(environment)) return { ok: false, error: 'metadata.environment: expected {"endpoint": "<name in terminal.docker.endpoints>", "container": "<name or id>"}' };
    const { endpoint, container, ...rest } = environment;
    if (Object.keys(rest).length > 0) return { ok: false, error: `metadata.environment.${Object.keys(rest)[0]}: unknown key` };
    if (typeof endpoint !== 'string' || !ENDPOINT.test(endpoint)) return { ok: false, error: 'metadata.environment.endpoint: expected a lower-case endpoint name' };
    if (typeof container !== 'string' || !CONTAINER.test(container)) return { ok: false, error: 'metadata.environment.container: expected a container name or id' };
    return { ok: true, source: { environment: { endpoint, container } } };
  }
  const value = metadata.workspace;
  if (value === undefined || value === null) return { ok: false, error: 'metadata.workspace: required (the episode\'s final workspace: {"tar": "<base64 tar or tar.gz>"} or {"path": "<under terminal.workspaceRoot>"}; or metadata.environment, its running container)' };
  if (!isJsonObject(value) || Object.keys(value).length !== 1) return { ok: false, error: 'metadata.workspace: expected exactly one of {"tar": …}, {"path": …}' };
  if ('tar' in value) {
    const tar = value.tar;
    if (typeof tar !== 'string' || tar.length % 4 !== 0 || !BASE64.test(tar)) return { ok: false, error: 'metadata.workspace.tar: expected standard base64' };
    return { ok: true, source: { tar: Buffer.from(tar, 'base64') } };
  }
  if ('path' in value) {
    const p = value.path;
    if (typeof p !== 'string' || p === '' || p.startsWith('/') || p.split('/').includes('..') || p.includes('\0')) return { ok: false, error: 'metadata.workspace.path: expected a relative path under terminal.workspaceRoot, without ".."' };
    return { ok: true, source: { path: p } };
  }
  return { ok: false, error: `metadata.workspace: expected "tar" or "path", received "${Object.keys(value)[0]}"` };
}

const REWARD = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

type Reward = { ok: true; value: number; file: string } | { ok: false; error: string } | null;

/**
 * Harbor's reading of the reward files: reward.json when it exists (an object; its numeric
 * "reward", else reward.txt as the scalar), else reward.txt (one float). An empty or unreadable
 * file is a verifier error, as is neither file.
 */
function readReward(run: Extract<WorkspaceRun, { kind: 'finished' }>): Reward {
  const fromTxt = (): Reward => {
    if (run.rewardTxt === null) return null;
    if (run.rewardTxt.trim() === '') return { ok: false, error: 'reward.txt is empty' };
    if (!REWARD.test(run.rewardTxt)) return { ok: false, error: `reward.txt is not a number: ${JSON.stringify(run.rewardTxt.slice(0, 60))}` };
    return { ok: true, value: Number(run.rewardTxt.trim()), file: 'reward.txt' };
  };
  if (run.rewardJson === null) return fromTxt();
  if (run.rewardJson.trim() === '') return { ok: false, error: 'reward.json is empty' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(run.rewardJson);
  } catch {
    return { ok: false, error: 'reward.json is not JSON' };
  }
  if (!isJsonObject(parsed)) return { ok: false, error: 'reward.json is not an object' };
  if (typeof parsed.reward === 'number') return { ok: true, value: parsed.reward, file: 'reward.json' };
  return fromTxt() ?? { ok: false, error: 'reward.json has no numeric "reward" and there is no reward.txt' };
}

function taskFrom(label: Extract<z.output<typeof terminalLabel>, { task: unknown }>['task'], defaults: WorkspacePort['defaults']): HarborTask {
  const toml = label.toml ?? {};
  return {
    id: label.id,
    tests: label.tests,
    timeoutSec: toml.verifier?.timeout_sec ?? defaults.timeoutSec,
    cpus: toml.environment?.cpus ?? defaults.cpus,
    memoryMb: toml.environment?.memory_mb ?? defaults.memoryMb,
    storageMb: toml.environment?.storage_mb ?? defaults.storageMb,
  };
}

/** What a container backend saw of the episode's environment, for details (only what it found). */
function environmentDetails(report: EnvironmentReport): JsonObject {
  return {
    ...(report.tampered.length ? { tampered: report.tampered.slice(0, 50) } : {}),
    ...(report.processes.length ? { episodeProcesses: report.processes.slice(0, 50), episodeProcessesStopped: report.processesStopped } : {}),
  };
}

const tail = (text: string) => (text.length > 400 ? `…${text.slice(-400)}` : text);

export const terminal = defineAsync({
  name: 'terminal',
  version: '1.0.0',
  description:
    'Coding Agent (Harbor tasks: Terminal-Bench 2, SETA, Endless-Terminal): the task\'s tests/test.sh run against the episode\'s final workspace (metadata.workspace) in a fresh sandbox; the reward file it writes, clamped to [0, 1], binary by default',
  label: terminalLabel,
  async score({ label, sample }, env): Promise<Outcome> {
    const workspace = readWorkspace(sample.metadata);
    if (!workspace.ok) return invalid(workspace.error);
    const port = env.services.workspace;
    if (!port) return aborted('service_unavailable', { service: 'terminal' });
    let task: HarborTask;
    if ('task' in label) task = taskFrom(label.task, port.defaults);
    else {
      const found = await port.task(label.taskId);
      if (found === null) return aborted('service_unavailable', { service: 'terminal.taskDir' });
      if (found.kind === 'missing') return invalid(`label.taskId: no task "${label.taskId}" in terminal.taskDir`);
      if (found.kind === 'broken') return invalid(`label.taskId: task "${label.taskId}": ${found.error}`);
      task = found.task;
    }
    if ('environment' in workspace.source) {
      // A container backend's endpoints; a backend without any cannot reach a container at all.
      const endpoint = workspace.source.environment.endpoint;
      if (port.endpoints === undefined) return aborted('service_unavailable', { service: 'terminal.docker', error: 'metadata.environment needs terminal.backend "docker"' });
      if (!port.endpoints.includes(endpoint)) return invalid(`metadata.environment.endpoint: no engine endpoint "${endpoint}" in terminal.docker.endpoints`);
    }
    let run: WorkspaceRun;
    try {
      run = await port.run(task, workspace.source, env.signal);
    } catch (error) {
      if (error instanceof WorkspaceError) return aborted(error.reason, { task: task.id, error: error.message });
      throw error;
    }
    const where = { task: task.id, ...(run.kind !== 'too_large' && run.environment ? environmentDetails(run.environment) : {}) };
    if (run.kind === 'too_large') return ok(0, 'workspace_too_large', { ...where, what: run.what });
    // The workspace broke the run (killed the runner, left processes that could rewrite the reward,
    // filled the disk): whatever the reward file says is not the tests' verdict.
    if (run.kind === 'workspace_fault') return ok(0, run.fault, { ...where, output: tail(run.output), ...(run.skipped.length ? { skipped: run.skipped } : {}) });
    const reward = readReward(run);
    const extra = { ...where, exitCode: run.exitCode, ...(run.skipped.length ? { skipped: run.skipped.slice(0, 20) } : {}) };
    if (reward === null) return invalid(`task ${task.id}: test.sh wrote no reward file (exit ${run.exitCode}): ${tail(run.output)}`, extra);
    if (!reward.ok) return invalid(`task ${task.id}: ${reward.error}`, extra);
    if (Number.isNaN(reward.value)) return invalid(`task ${task.id}: the reward is not a number`, extra);
    const clamped = Math.min(1, Math.max(0, reward.value));
    const value = label.binary ? (clamped === 1 ? 1 : 0) : clamped;
    return ok(value, value > 0 ? 'tests_passed' : 'tests_failed', { ...extra, file: reward.file, raw: reward.value });
  },
});
