import type { Json } from '../json';

/**
 * What the `agent_state` verifier sees of its configuration (`agentState:` in the config file):
 * the limits of a run and the task directory. services/agent-state implements it; absent without
 * the section (inline tasks then run under the defaults, task ids cannot be resolved).
 */
export interface AgentTask {
  id: string;
  /** Python source defining the verification function. */
  code: string;
  entry: string;
  params: Json;
  /**
   * Where the task comes from: `awm` for AgentWorldModel's release files, whose functions are always
   * called as its runner calls them (and always get an initial state); `verdict` for a task folder or
   * an inline task, whose signature picks the convention (verifiers/agent_state/README.md).
   */
  source: 'verdict' | 'awm';
  /**
   * The initial database Verdict built for the task's environment (SQLite file, base64), when it has
   * one, and the reference time its "now" was read as.
   */
  initialState?: { sqlite: string; referenceTime: string };
}

export interface AgentStateLimits {
  /** Largest state (a SQLite file, or an SQL dump's text) in bytes. */
  maxStateBytes: number;
  cpuMs: number;
  memoryMb: number;
}

export const DEFAULT_AGENT_STATE_LIMITS: AgentStateLimits = { maxStateBytes: 16 << 20, cpuMs: 10_000, memoryMb: 512 };

export type TaskLookup = { kind: 'found'; task: AgentTask } | { kind: 'missing' } | { kind: 'broken'; error: string };

export interface AgentStatePort {
  limits: AgentStateLimits;
  /** The task of that id in the configured task sources; null when none is configured. */
  task(id: string): Promise<TaskLookup | null>;
}
