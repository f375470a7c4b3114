import type { ChatMessage } from '../chat';
import { aborted, type Outcome } from '../sample';

/**
 * The reward-model port: what `rlhf` sees of the configured reward-model servers
 * (`env.services.rewardModels`). services/reward-model implements it for SGLang and vLLM.
 */

/**
 * The raw logit of one conversation, or why there is none. `reason` is the ABORTED reason:
 * reward_model_unavailable (retries exhausted), reward_model_rejected (4xx), reward_model_malformed
 * (an answer that is not a 1-label logit), reward_model_deadline, chat_template_error, or the
 * caller's cancellation reason ("deadline", "shutdown", …).
 */
export type RmScore =
  | { ok: true; score: number; attempts: number }
  | { ok: false; reason: string; message: string; attempts: number };

/** One reward-model endpoint. */
export interface RewardModelPort {
  readonly name: string;
  /** Score only the text after `</think>` (the endpoint's config decides). */
  readonly stripThink: boolean;
  /** Answers every call exactly once, with the server's raw logit or a failure; never rejects. */
  score(messages: readonly ChatMessage[], signal?: AbortSignal): Promise<RmScore>;
}

/** The configured endpoints by name. */
export interface RewardModelsPort {
  /** The named endpoint, or the default one when `name` is undefined. */
  get(name?: string): RewardModelPort | undefined;
  names(): string[];
}

/** The ABORTED outcome of a score that failed: never a reward. */
export function rewardModelAborted(failure: Extract<RmScore, { ok: false }>, endpoint: string): Outcome {
  return aborted(failure.reason, { endpoint, attempts: failure.attempts, message: failure.message });
}
