import type { z } from 'zod';
import type { Json, JsonObject } from './json';
import type { AgentStatePort } from './ports/agent-state';
import type { JsIsolatePort } from './ports/js-isolate';
import type { JudgePort } from './ports/judge';
import type { RewardModelsPort } from './ports/reward-model';
import type { SandboxPort } from './ports/sandbox';
import type { TerminalPort } from './ports/terminal';
import type { Outcome, Sample } from './sample';

/** What every verifier's score function receives: the response, the validated label, the raw sample. */
export interface VerifierInput<L> {
  response: string;
  label: L;
  sample: Sample;
}

/**
 * The I/O a verifier may use, each through a narrow port defined in core/ports/ and implemented
 * under services/. The composition root (services/bootstrap.ts) fills the fields the config asks
 * for. A field is absent when the service is not configured: a verifier that `requires` its section
 * is ABORTED `service_unavailable` before `score` runs (core/score.ts); one that only `uses` it checks
 * itself. Never a reward.
 */
export interface Services {
  /** The Python sandbox (code, puzzle, python rubrics of if); absent without a `sandbox:` section. */
  sandbox?: SandboxPort;
  /** LLM-judge endpoints by name ("search", "if"); absent without a `judge:` section. */
  judges?: ReadonlyMap<string, JudgePort>;
  /** Reward-model endpoints (rlhf); absent without a `rewardModel:` section. */
  rewardModels?: RewardModelsPort;
  /** V8 isolates for `js` rubrics of if: memory and time limits, no I/O. */
  jsIsolate?: JsIsolatePort;
  /** agent_state's limits and task directory; absent without an `agentState:` section. */
  agentState?: AgentStatePort;
  /** The terminal verifier's backend (bwrap or docker), which runs a task's tests on an episode's workspace; absent without a `terminal:` section. */
  terminal?: TerminalPort;
}

export interface VerifierEnv {
  /** Aborted on deadline, cancellation or shutdown; `signal.reason` is the reason string. */
  signal: AbortSignal;
  services: Services;
  /** Runs one of this verifier's pure `tasks` on the worker pool, off the event loop. */
  compute(task: string, payload: Json): Promise<Json>;
}

/**
 * A config section that serves verifiers a service: a key of services/config's schema, spelt as the
 * config file spells it. Receipts hash these sections, and `service_unavailable` names them.
 */
export type ServiceSection = 'sandbox' | 'judge' | 'rewardModel' | 'jsIsolate' | 'agentState' | 'terminal';

/** Where each section's service appears in `Services` (filled by services/bootstrap.ts from that section). */
export const SERVICE_OF_SECTION: { readonly [S in ServiceSection]: keyof Services } = {
  sandbox: 'sandbox',
  judge: 'judges',
  rewardModel: 'rewardModels',
  jsIsolate: 'jsIsolate',
  agentState: 'agentState',
  terminal: 'terminal',
};

/**
 * One sample a verifier carries beside its code, as constraints carry theirs: the playground fills
 * it in, and the smoke test (test/spine/examples.test.ts) scores it and expects `reward` whenever
 * the verifier's `requires` are configured.
 */
export interface VerifierExample {
  label: JsonObject;
  response: string;
  metadata?: JsonObject;
  /** The reward it earns when its services are there; absent where a model decides it (a judge, a reward model). */
  reward?: number;
  /** Sections of the verifier's `uses` that this example needs too (search's judge): without them it is ABORTED. */
  needs?: readonly ServiceSection[];
}

interface VerifierBase<S extends z.ZodType> {
  name: string;
  /** Bumped whenever the same input could get a different reward. */
  version: string;
  description: string;
  label: S;
  /** Pure, synchronous helpers that async verifiers run on the worker pool through `env.compute`. */
  tasks?: Record<string, (payload: Json) => Json>;
  example: VerifierExample;
  /**
   * The `verdict audit` batteries (audit/batteries, by id) whose hacks apply to this verifier's
   * labels. A verifier without one is reported as no battery covering it (`verdict audit`).
   */
  audit?: readonly string[];
}

/** A pure, synchronous verifier: scored on the worker pool, deterministic by construction. */
export interface PureVerifier<S extends z.ZodType = z.ZodType> extends VerifierBase<S> {
  kind: 'pure';
  score(input: VerifierInput<z.output<S>>): Outcome;
}

/** A verifier that needs I/O (sandbox, judge, reward model): runs on the main thread, awaits services. */
export interface AsyncVerifier<S extends z.ZodType = z.ZodType> extends VerifierBase<S> {
  kind: 'async';
  /**
   * Sections whose service no sample can be scored without: when one is not configured, every sample
   * is ABORTED `service_unavailable` naming it (`{service: "sandbox"}`), checked once after the label
   * and before `score` (core/score.ts), so `score` may take the service as given.
   */
  requires: readonly ServiceSection[];
  /**
   * Sections whose service only some samples need (`if`'s python rubrics, a named task directory):
   * `score` checks those itself, naming the finer key (`judge.endpoints.if`, `agentState.tasks`).
   */
  uses?: readonly ServiceSection[];
  score(input: VerifierInput<z.output<S>>, env: VerifierEnv): Promise<Outcome>;
}

export type Verifier = PureVerifier | AsyncVerifier;

/** The config sections a verifier's verdict depends on (its receipt's `config` hashes them): none for a pure one. */
export function sectionsRead(verifier: Verifier): ServiceSection[] {
  if (verifier.kind === 'pure') return [];
  return [...new Set([...verifier.requires, ...(verifier.uses ?? [])])];
}

/** Identity helpers that keep the label type flowing from the schema into `score`. */
export function definePure<S extends z.ZodType>(verifier: Omit<PureVerifier<S>, 'kind'>): PureVerifier {
  return { kind: 'pure', ...verifier } as unknown as PureVerifier;
}

export function defineAsync<S extends z.ZodType>(verifier: Omit<AsyncVerifier<S>, 'kind'>): AsyncVerifier {
  return { kind: 'async', ...verifier } as unknown as AsyncVerifier;
}
