import { z } from 'zod';
import { isJsonObject, type Json, type JsonObject } from '../../core/json';
import { DEFAULT_AGENT_STATE_LIMITS, type AgentTask } from '../../core/ports/agent-state';
import { sandboxAborted } from '../../core/ports/sandbox';
import { aborted, invalid, ok, type Outcome } from '../../core/sample';
import { finalText } from '../../core/text';
import { defineAsync, type VerifierExample } from '../../core/verifier';
import { HARNESS, STATE_ENTRY } from './harness';

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a Python identifier');

export const agentStateLabel = z.union([
  z.strictObject({
    task: z
      .strictObject({
        id: z.string().min(1).describe('The task id, named in reasons'),
        code: z.string().min(1).describe('Python source defining the verification function'),
        entry: identifier
          .default('verify')
          .describe('The function: verify(initial_db_path, final_db_path, params) → bool or {"passed": bool, "reason": str}, or AgentWorldModel\'s verify_task_completion(initial_db_path, final_db_path, final_answer) → {"result": "complete" | "others"}'),
        params: z.json().optional().describe('The task\'s parameters, passed as the third argument'),
      })
      .describe('The task inline'),
  }),
  z.strictObject({
    taskId: z
      .string()
      .min(1)
      .describe('A task of the configured task sources: a folder of agentState.taskDir / agentState.tasks (<dir>/<id>/verify.py), or <environment>.<index> of AgentWorldModel release files in agentState.tasks'),
  }),
]);

/** `metadata.finalState` / `metadata.initialState`: a SQLite file as base64, or an SQL dump. */
type State = { sqlite: string } | { sql: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type StateRead = { ok: true; state: State; bytes: number } | { ok: false; field: string; error: string };

function readState(metadata: JsonObject, key: 'finalState' | 'initialState'): StateRead | null {
  const value = metadata[key];
  if (value === undefined || value === null) return null;
  const field = `metadata.${key}`;
  if (!isJsonObject(value)) return { ok: false, field, error: 'expected {"sqlite": "<base64>"} or {"sql": "<dump>"}' };
  const keys = Object.keys(value);
  if (keys.length !== 1 || (keys[0] !== 'sqlite' && keys[0] !== 'sql')) return { ok: false, field, error: `expected exactly one of "sqlite", "sql"; received ${keys.map((k) => `"${k}"`).join(', ') || 'none'}` };
  const text = value[keys[0]!];
  if (typeof text !== 'string') return { ok: false, field: `${field}.${keys[0]}`, error: `expected string, received ${text === null ? 'null' : typeof text}` };
  if (keys[0] === 'sql') return { ok: true, state: { sql: text }, bytes: Buffer.byteLength(text) };
  if (text.length % 4 !== 0 || !BASE64.test(text)) return { ok: false, field: `${field}.sqlite`, error: 'not standard base64' };
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return { ok: true, state: { sqlite: text }, bytes: (text.length / 4) * 3 - padding };
}

/**
 * The task's verdict: a bool, {"passed": bool, "reason": str}, or AgentWorldModel's
 * {"result": "complete" | "others"}; anything else is the task's defect (for Verdict's own tasks a
 * "result" other than those two is one too).
 *
 * A task of AWM's release files is read as AWM's code-mode runner reads it: only a dict with a
 * "result" counts — a bool or any other shape is its "Invalid return format" (a judge error, the
 * dataset's defect: INVALID) — and every "result" but exactly "complete" is "others", a 0.
 */
function passedOf(value: Json, awm: boolean): { passed: boolean; reason: string | null } | null {
  if (awm) {
    if (!isJsonObject(value) || !('result' in value)) return null;
    return { passed: value.result === 'complete', reason: typeof value.result === 'string' ? value.result.slice(0, 100) : typeof value.shown === 'string' ? value.shown : 'null' };
  }
  if (typeof value === 'boolean') return { passed: value, reason: null };
  if (isJsonObject(value) && 'result' in value) {
    if (value.result === 'complete' || value.result === 'others') return { passed: value.result === 'complete', reason: value.result };
    return null;
  }
  if (isJsonObject(value) && typeof value.passed === 'boolean' && (value.reason === undefined || typeof value.reason === 'string')) {
    return { passed: value.passed, reason: typeof value.reason === 'string' ? value.reason.slice(0, 500) : null };
  }
  return null;
}

/** The example's database: a read-only task leaves it as it was. */
const CHILL =
  "CREATE TABLE playlists (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE playlist_tracks (playlist_id INTEGER, track_id INTEGER); INSERT INTO playlists VALUES (1, 'Chill'); INSERT INTO playlist_tracks VALUES (1, 1), (1, 2), (1, 4);";

// AgentWorldModel's format: verify_task_completion(initial_db_path, final_db_path, final_answer)
// → {"result": "complete" | "others"}, the final answer taken after </think>.
const EXAMPLE: VerifierExample = {
  label: {
    task: {
      id: 'chill-track-count',
      code: "def verify_task_completion(initial_db_path, final_db_path, final_answer=None):\n    q = 'SELECT count(*) FROM playlist_tracks WHERE playlist_id = 1'\n    before = sqlite3.connect('file:%s?mode=ro' % initial_db_path, uri=True).execute(q).fetchone()[0]\n    after = sqlite3.connect('file:%s?mode=ro' % final_db_path, uri=True).execute(q).fetchone()[0]\n    if before != after:\n        return {'result': 'others'}  # a read-only task: nothing may change\n    stated = re.findall(r'\\b(\\d+) tracks?\\b', final_answer or '')\n    return {'result': 'complete' if stated == [str(after)] else 'others'}\n",
      entry: 'verify_task_completion',
    },
  },
  response: '<think>Chill holds tracks 1, 2 and 4.</think>\nYour Chill playlist has 3 tracks.',
  metadata: { initialState: { sql: CHILL }, finalState: { sql: CHILL } },
  reward: 1,
};

export const agentState = defineAsync({
  name: 'agent_state',
  version: '1.2.0',
  audit: ['agent-answers', 'agent-states'],
  description:
    'General Agent (AgentWorldModel MCP tasks): the task\'s Python verification function, run in the sandbox on the episode\'s final SQLite state (metadata.finalState), the initial one (its environment\'s, or metadata.initialState) and the final answer after </think>; 1 when it passes',
  label: agentStateLabel,
  // agentState serves tasks by id and limits; inline tasks score without it (`score` names agentState.tasks).
  requires: ['sandbox'],
  uses: ['agentState'],
  example: EXAMPLE,
  async score({ label, sample }, env): Promise<Outcome> {
    const port = env.services.agentState;
    const limits = port?.limits ?? DEFAULT_AGENT_STATE_LIMITS;
    const final = readState(sample.metadata, 'finalState');
    if (final === null) return invalid('metadata.finalState: required (the episode\'s final database: {"sqlite": "<base64>"} or {"sql": "<dump>"})');
    if (!final.ok) return invalid(`${final.field}: ${final.error}`);
    const initial = readState(sample.metadata, 'initialState');
    if (initial && !initial.ok) return invalid(`${initial.field}: ${initial.error}`);
    if (initial && initial.bytes > limits.maxStateBytes) return invalid(`metadata.initialState: ${initial.bytes} bytes, over agentState.maxStateMb`);
    // The final state is what the policy made: one too large to check is its 0, not an exit.
    if (final.bytes > limits.maxStateBytes) return ok(0, 'state_too_large', { bytes: final.bytes, limit: limits.maxStateBytes });

    let task: AgentTask;
    if ('task' in label) task = { id: label.task.id, code: label.task.code, entry: label.task.entry, params: (label.task.params ?? null) as Json, source: 'verdict' };
    else {
      const found = port ? await port.task(label.taskId) : null;
      if (found === null) return aborted('service_unavailable', { service: 'agentState.tasks' });
      if (found.kind === 'missing') return invalid(`label.taskId: no task "${label.taskId}" in agentState's task sources`);
      if (found.kind === 'broken') return invalid(`label.taskId: task "${label.taskId}": ${found.error}`);
      task = found.task;
    }
    const sandbox = env.services.sandbox!;
    if (!initial && task.initialState && (task.initialState.sqlite.length / 4) * 3 > limits.maxStateBytes) {
      return invalid(`task ${task.id}: its environment's initial database is over agentState.maxStateMb`, { task: task.id });
    }

    // The sample's own initial state wins: it is the one its episode started from. Else the one
    // Verdict built for the task's environment, marked as checked when it was built.
    const initialState: Json = initial ? (initial.state as unknown as Json) : task.initialState ? { sqlite: task.initialState.sqlite, built: true } : null;
    // The agent's final message, as AgentWorldModel's runner hands it over: '' when there is none.
    const answer = finalText(sample.response)?.trim() ?? '';
    // With the environment's database, the verification's SQL reads "now" as that database was built.
    const referenceTime = !initial && task.initialState ? task.initialState.referenceTime : null;
    const args: Json[] = [task.code, task.entry, task.source === 'awm', initialState, final.state as unknown as Json, task.params, answer, referenceTime];
    let result;
    try {
      result = await sandbox.callFunction({ source: HARNESS, entry: STATE_ENTRY, args, limits: { cpuMs: limits.cpuMs, memoryMb: limits.memoryMb } }, env.signal);
    } catch (error) {
      return sandboxAborted(error, { task: task.id });
    }
    const where = { task: task.id };
    switch (result.kind) {
      // The module the sandbox loads is Verdict's harness alone (the task's code is its argument):
      // one that does not load is Verdict's fault, never the dataset's or the policy's.
      case 'compile_error':
      case 'missing_entry':
        return aborted('sandbox_error', { ...where, error: `the agent_state harness did not load: ${result.error}` });
      case 'raised':
        return invalid(`task ${task.id}: the verification raised on a well-formed state: ${result.error}`, where);
      // The run's limits are reached on this state: the state's doing as far as anyone can tell
      // (its size and shape are the policy's), so a 0 — never an exit from the group.
      case 'limit':
        return ok(0, 'verification_limit', { ...where, limit: result.limit });
      case 'returned':
        break;
    }
    const reply = result.value;
    if (!isJsonObject(reply) || typeof reply.verdict !== 'string') return invalid(`task ${task.id}: unexpected harness reply`, where);
    switch (reply.verdict) {
      case 'load_error':
        return invalid(`task ${task.id}: the verification code does not load: ${String(reply.error).slice(0, 2000)}`, where);
      case 'missing_entry':
        return invalid(`task ${task.id}: no function "${task.entry}" in its verification code`, where);
      case 'needs_initial':
        return invalid(`metadata.initialState: required: task ${task.id}'s verification takes initial_db_path (AgentWorldModel's convention) and the sample has no initial state`, where);
      case 'initial_state':
        if (initial === null) return invalid(`task ${task.id}: its environment's initial database is not usable (${String(reply.error).slice(0, 300)})`, where);
        return invalid(`metadata.initialState: not a usable database (${String(reply.error).slice(0, 300)})`, where);
      case 'state':
        return ok(0, 'corrupt_state', { ...where, error: String(reply.error).slice(0, 300) });
      case 'schema':
        return ok(0, 'schema_changed', { ...where, tables: reply.tables ?? [] });
    }
    const awm = task.source === 'awm';
    const verdict = passedOf(reply.value ?? null, awm);
    if (verdict === null) {
      const returned = JSON.stringify(reply.value ?? null).slice(0, 120);
      if (awm) return invalid(`task ${task.id}: the verification returned ${returned}, not a dict with "result" (AgentWorldModel's runner: invalid return format)`, where);
      return invalid(`task ${task.id}: the verification returned ${returned}, not a bool, {"passed": bool, "reason": str} or {"result": "complete" | "others"}`, where);
    }
    return ok(verdict.passed ? 1 : 0, verdict.passed ? 'passed' : 'failed', { ...where, ...(verdict.reason !== null ? { why: verdict.reason } : {}) });
  },
});
