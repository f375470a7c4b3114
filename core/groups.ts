import type { ResultHead, Sample, ScoreResult } from './sample';

/**
 * Group shaping: the per-prompt signals a GRPO-style trainer needs, computed over the rollouts that
 * share a `group_id`. Everything here is pure and deterministic (sums run in input order).
 *
 * Only OK samples count. ABORTED samples (infrastructure noise) and INVALID ones (data bugs) are
 * left out of every statistic — the mean, L*, the advantages, the keep verdict — and the summary
 * says how many of each were left out.
 */

export type AdvantageEstimator = '' | 'grpo' | 'mean';

/** Resolved options: every default applied, every combination checked (see resolveGroupOptions). */
export interface GroupOptions {
  lengthPenalty: boolean;
  lengthPenaltyMax: number;
  maxLength: number;
  keepMin: number;
  keepMax: number;
  minValid: number;
  advantage: AdvantageEstimator;
}

/** The options as a request carries them: proto3 zeros and absent fields mean "default". */
export interface GroupOptionsInput {
  lengthPenalty?: boolean;
  lengthPenaltyMax?: number;
  maxLength?: number;
  keepMin?: number;
  keepMax?: number;
  minValid?: number;
  advantage?: string;
}

export const GROUP_DEFAULTS = {
  lengthPenaltyMax: 0.5,
  keepMin: 0,
  keepMax: 0.8,
  minValid: 2,
} as const;

/** Added to the group std before dividing (as verl does), so a near-constant group cannot blow up. */
export const GRPO_EPSILON = 1e-6;

export type GroupOptionsParse = { ok: true; options: GroupOptions } | { ok: false; error: string };

/** Applies the defaults and rejects options that cannot mean anything; errors name the proto field. */
export function resolveGroupOptions(input: GroupOptionsInput, root = 'group_options'): GroupOptionsParse {
  const fail = (field: string, message: string): GroupOptionsParse => ({ ok: false, error: `${root}.${field}: ${message}` });
  const advantage = input.advantage ?? '';
  if (advantage !== '' && advantage !== 'grpo' && advantage !== 'mean') {
    return fail('advantage', `expected "", "grpo" or "mean", got ${JSON.stringify(advantage)}`);
  }
  const lengthPenaltyMax = input.lengthPenaltyMax || GROUP_DEFAULTS.lengthPenaltyMax;
  if (!Number.isFinite(lengthPenaltyMax) || lengthPenaltyMax < 0) return fail('length_penalty_max', 'expected a finite number ≥ 0');
  const maxLength = input.maxLength ?? 0;
  const lengthPenalty = input.lengthPenalty ?? false;
  if (lengthPenalty && maxLength <= 0) return fail('max_length', 'required (> 0) when length_penalty is set');
  const keepMin = input.keepMin ?? GROUP_DEFAULTS.keepMin;
  const keepMax = input.keepMax ?? GROUP_DEFAULTS.keepMax;
  if (!Number.isFinite(keepMin)) return fail('keep_min', 'expected a finite number');
  if (!Number.isFinite(keepMax)) return fail('keep_max', 'expected a finite number');
  if (!(keepMin < keepMax)) return fail('keep_max', `must be greater than keep_min (${keepMin}): the window (keep_min, keep_max] is empty`);
  const minValid = input.minValid || GROUP_DEFAULTS.minValid;
  return { ok: true, options: { lengthPenalty, lengthPenaltyMax, maxLength, keepMin, keepMax, minValid, advantage } };
}

export interface GroupSummary {
  groupId: string;
  size: number;
  ok: number;
  aborted: number;
  invalid: number;
  /** Mean of the rewards returned (after any length penalty) over OK samples; the advantage baseline. */
  meanReward?: number;
  /** With options: the mean of the verifiers' raw rewards over OK samples, which the window applies to. */
  meanRawReward?: number;
  /** L*: the fewest response tokens among correct samples (only with the length penalty). */
  shortestCorrect?: number;
  keep: boolean;
  keepReason: '' | 'all_fail' | 'too_easy' | 'too_few_valid';
}

/** A result after shaping: the reward may carry a length penalty, and an advantage may be set. */
export interface ShapedResult extends ScoreResult {
  advantage?: number;
}

/** What shaping needs to know of each sample. */
export type GroupMember = Pick<Sample, 'groupId' | 'responseTokens'>;

/**
 * p_max × clamp((L − L*) / (Lmax − L*), 0, 1), written so that the degenerate windows (Lmax ≤ L*)
 * still give 0 at or below L* and p_max at or beyond Lmax.
 */
export function lengthPenalty(length: number, shortest: number, maxLength: number, maxPenalty: number): number {
  if (length <= shortest) return 0;
  if (length >= maxLength) return maxPenalty;
  return (maxPenalty * (length - shortest)) / (maxLength - shortest);
}

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Sample standard deviation (n − 1), as verl, OpenRLHF and TRL compute the GRPO group std. */
function sampleStd(values: readonly number[], center: number): number {
  if (values.length < 2) return 0;
  let squares = 0;
  for (const v of values) squares += (v - center) ** 2;
  return Math.sqrt(squares / (values.length - 1));
}

function keepVerdict(ok: number, meanRaw: number | undefined, options: GroupOptions | null): Pick<GroupSummary, 'keep' | 'keepReason'> {
  if (options === null) return { keep: true, keepReason: '' };
  if (ok < options.minValid || meanRaw === undefined) return { keep: false, keepReason: 'too_few_valid' };
  if (meanRaw <= options.keepMin) return { keep: false, keepReason: 'all_fail' };
  if (meanRaw > options.keepMax) return { keep: false, keepReason: 'too_easy' };
  return { keep: true, keepReason: '' };
}

/** The reason an OK sample becomes INVALID when the length penalty cannot be computed for it. */
export const MISSING_TOKENS_REASON = 'response_tokens: required (> 0) when group_options.length_penalty is set';

/** A group's counts by status, and its OK members' positions; reads only the results' heads. */
function countGroup(groupId: string, indices: readonly number[], results: readonly ResultHead[]): { summary: GroupSummary; okIndices: number[] } {
  const okIndices: number[] = [];
  let aborted = 0;
  for (const i of indices) {
    const status = results[i]!.status;
    if (status === 'OK') okIndices.push(i);
    else if (status === 'ABORTED') aborted++;
  }
  const summary: GroupSummary = {
    groupId,
    size: indices.length,
    ok: okIndices.length,
    aborted,
    invalid: indices.length - okIndices.length - aborted,
    keep: true,
    keepReason: '',
  };
  return { summary, okIndices };
}

/** A group's summary without shaping (every group kept): its counts and the mean of its OK rewards. */
function summarizeGroup(groupId: string, indices: readonly number[], results: readonly ResultHead[]): GroupSummary {
  const { summary, okIndices } = countGroup(groupId, indices, results);
  if (okIndices.length > 0) summary.meanReward = mean(okIndices.map((i) => results[i]!.reward!));
  return summary;
}

/** Shapes one group in place of its members' results; `indices` are positions in the batch. */
function shapeGroup(
  groupId: string,
  indices: readonly number[],
  members: readonly GroupMember[],
  results: ShapedResult[],
  options: GroupOptions | null,
): GroupSummary {
  const penalize = options?.lengthPenalty === true;
  if (penalize) {
    // A length penalty against an unknown length would be silently wrong: the sample is malformed.
    for (const i of indices) {
      const result = results[i]!;
      if (result.status === 'OK' && members[i]!.responseTokens <= 0) {
        const { reward: _reward, ...rest } = result;
        results[i] = { ...rest, status: 'INVALID', reason: MISSING_TOKENS_REASON };
      }
    }
  }

  const { summary, okIndices } = countGroup(groupId, indices, results);
  if (okIndices.length === 0) return { ...summary, ...keepVerdict(0, undefined, options) };

  const raw = okIndices.map((i) => results[i]!.reward!);
  let penalties: number[] | null = null;
  if (penalize && options) {
    let shortest = Infinity;
    okIndices.forEach((i, k) => {
      if (raw[k]! > 0) shortest = Math.min(shortest, members[i]!.responseTokens);
    });
    if (shortest !== Infinity) summary.shortestCorrect = shortest;
    penalties = okIndices.map((i, k) =>
      shortest !== Infinity && raw[k]! > 0
        ? lengthPenalty(members[i]!.responseTokens, shortest, options.maxLength, options.lengthPenaltyMax)
        : 0,
    );
  }
  const shaped = penalties ? raw.map((r, k) => r - penalties[k]!) : raw;
  const meanShaped = mean(shaped);
  const meanRaw = mean(raw);
  summary.meanReward = meanShaped;
  if (options) summary.meanRawReward = meanRaw;

  const estimator = options?.advantage ?? '';
  const std = estimator === 'grpo' ? sampleStd(shaped, meanShaped) : 0;
  if (penalties || estimator !== '') {
    okIndices.forEach((i, k) => {
      const result = results[i]!;
      // One object literal per result (no spread, no added keys): this loop is the cost of shaping.
      let details = result.details;
      if (penalties) {
        // Not `{ ...details, rawReward, … }`: Node 20 takes a slow path (µs per object) for a spread with added keys.
        details = { ...details };
        details.rawReward = raw[k]!;
        details.lengthPenalty = penalties[k]!;
      }
      const centered = okIndices.length < 2 ? 0 : shaped[k]! - meanShaped;
      const advantage = estimator === 'grpo' ? centered / (std + GRPO_EPSILON) : estimator === 'mean' ? centered : undefined;
      const next: ShapedResult = {
        id: result.id,
        index: result.index,
        status: result.status,
        reward: shaped[k]!,
        reason: result.reason,
        verifier: result.verifier,
        verifierVersion: result.verifierVersion,
        details,
      };
      if (advantage !== undefined) next.advantage = advantage;
      results[i] = next;
    });
  }
  return { ...summary, ...keepVerdict(okIndices.length, meanRaw, options) };
}

/** Positions of each non-empty group id, in order of first appearance. */
export function groupIndices(members: ReadonlyArray<Pick<GroupMember, 'groupId'>>): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  members.forEach((member, i) => {
    if (member.groupId === '') return;
    const list = groups.get(member.groupId);
    if (list) list.push(i);
    else groups.set(member.groupId, [i]);
  });
  return groups;
}

/**
 * Shapes a whole batch: one summary per non-empty group id (in order of first appearance) and the
 * results, shaped when `options` asks for it. Ungrouped samples pass through untouched. With
 * `options === null` rewards are unchanged and every group is kept.
 */
export function shapeGroups(
  members: readonly GroupMember[],
  results: readonly ScoreResult[],
  options: GroupOptions | null,
): { results: ShapedResult[]; groups: GroupSummary[] } {
  const shaped: ShapedResult[] = [...results];
  const groups = [...groupIndices(members)].map(([groupId, indices]) => shapeGroup(groupId, indices, members, shaped, options));
  return { results: shaped, groups };
}

/** Group summaries without shaping, from the results' heads alone (results whose details are elsewhere summarize too). */
export function summarizeGroups(members: ReadonlyArray<Pick<GroupMember, 'groupId'>>, results: readonly ResultHead[]): GroupSummary[] {
  return [...groupIndices(members)].map(([groupId, indices]) => summarizeGroup(groupId, indices, results));
}

/** A result ready to send on a stream; the last one of a group carries the group's summary. */
export interface StreamItem<R extends ResultHead = ShapedResult> {
  result: R;
  group?: GroupSummary;
}

/**
 * Orders a stream of results for ScoreStream. Ungrouped results go out at once. A group's results go
 * out at once too when there are no options (rewards do not change), or are held back until the
 * group is complete when there are (shaping needs the whole group); either way the group's last
 * result carries its summary. Without options only the results' heads are read, so `R` may be any
 * result (one whose details are in its encoding); shaping rewrites results whole, so options need `R`
 * to be a `ScoreResult`.
 */
export class GroupStream<R extends ResultHead = ShapedResult> {
  private readonly indicesOf: Map<string, number[]>;
  private readonly received = new Map<string, number>();
  /** Shaped in place: shaping a group touches only that group's positions. */
  private readonly results: R[];

  constructor(
    private readonly members: readonly GroupMember[],
    private readonly options: R extends ScoreResult ? GroupOptions | null : null,
  ) {
    this.indicesOf = groupIndices(members);
    this.results = new Array<R>(members.length);
  }

  push(result: R): Array<StreamItem<R>> {
    const groupId = this.members[result.index]?.groupId ?? '';
    if (groupId === '') return [{ result }];
    this.results[result.index] = result;
    const indices = this.indicesOf.get(groupId)!;
    const received = (this.received.get(groupId) ?? 0) + 1;
    this.received.set(groupId, received);
    const complete = received === indices.length;
    if (this.options === null) return [complete ? { result, group: summarizeGroup(groupId, indices, this.results) } : { result }];
    if (!complete) return [];
    // Options are given only when R is a ScoreResult (the constructor's type): shaping writes ShapedResults.
    const group = shapeGroup(groupId, indices, this.members, this.results as unknown as ShapedResult[], this.options);
    const last = indices.length - 1;
    return indices.map((i, k) => (k === last ? { result: this.results[i]!, group } : { result: this.results[i]! }));
  }
}
