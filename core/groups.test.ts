import {
  GroupStream,
  MISSING_TOKENS_REASON,
  lengthPenalty,
  resolveGroupOptions,
  shapeGroups,
  type GroupOptions,
  type GroupOptionsInput,
  type ShapedResult,
} from './groups';
import type { ScoreResult, Status } from './sample';

/** One rollout as the engine would have decided it: group, length, status and raw reward. */
interface Rollout {
  group: string;
  tokens: number;
  status?: Status;
  reward?: number;
}

function batch(rollouts: Rollout[]) {
  const members = rollouts.map((r) => ({ groupId: r.group, responseTokens: r.tokens }));
  const results: ScoreResult[] = rollouts.map((r, index) => {
    const status = r.status ?? 'OK';
    const result: ScoreResult = { id: `s${index}`, index, status, reason: status === 'OK' ? 'scored' : 'sandbox_down', verifier: 'qa', verifierVersion: '1', details: { extracted: 'x' } };
    if (status === 'OK') result.reward = r.reward ?? 0;
    return result;
  });
  return { members, results };
}

function options(input: GroupOptionsInput = {}): GroupOptions {
  const parsed = resolveGroupOptions(input);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.options;
}

const PENALTY = { lengthPenalty: true, maxLength: 1100 };

describe('length penalty relative to the shortest correct rollout', () => {
  it('is zero at or below L*, linear up to p_max at Lmax, p_max beyond', () => {
    expect(lengthPenalty(100, 100, 1100, 0.5)).toBe(0);
    expect(lengthPenalty(50, 100, 1100, 0.5)).toBe(0);
    expect(lengthPenalty(600, 100, 1100, 0.5)).toBe(0.25);
    expect(lengthPenalty(1100, 100, 1100, 0.5)).toBe(0.5);
    expect(lengthPenalty(5000, 100, 1100, 0.5)).toBe(0.5);
    // Degenerate window: L* already at the maximum length.
    expect(lengthPenalty(1100, 1100, 1100, 0.5)).toBe(0);
    expect(lengthPenalty(1200, 1100, 1100, 0.5)).toBe(0.5);
  });

  it('all right: each correct sample pays for its length over L*; raw reward kept in details', () => {
    const { members, results } = batch([
      { group: 'g', tokens: 600, reward: 1 },
      { group: 'g', tokens: 100, reward: 1 },
      { group: 'g', tokens: 200, reward: 1 },
      { group: 'g', tokens: 1100, reward: 1 },
    ]);
    const shaped = shapeGroups(members, results, options(PENALTY));
    expect(shaped.results.map((r) => r.reward)).toEqual([0.75, 1, 0.95, 0.5]);
    expect(shaped.results.map((r) => r.details.rawReward)).toEqual([1, 1, 1, 1]);
    expect(shaped.results.map((r) => r.details.lengthPenalty)).toEqual([0.25, 0, 0.05, 0.5]);
    expect(shaped.results[0]!.details.extracted).toBe('x');
    const [group] = shaped.groups;
    expect(group).toMatchObject({ groupId: 'g', size: 4, ok: 4, shortestCorrect: 100, meanRawReward: 1, keep: false, keepReason: 'too_easy' });
    expect(group!.meanReward).toBeCloseTo(0.8, 12);
  });

  it('all wrong: no correct sample, so no penalty and no L*; the group is dropped as all_fail', () => {
    const { members, results } = batch([
      { group: 'g', tokens: 100, reward: 0 },
      { group: 'g', tokens: 900, reward: 0 },
      { group: 'g', tokens: 1500, reward: 0 },
    ]);
    const shaped = shapeGroups(members, results, options({ ...PENALTY, advantage: 'grpo' }));
    expect(shaped.results.map((r) => r.reward)).toEqual([0, 0, 0]);
    expect(shaped.results.map((r) => r.details.lengthPenalty)).toEqual([0, 0, 0]);
    expect(shaped.results.map((r) => r.advantage)).toEqual([0, 0, 0]);
    expect(shaped.groups[0]).toMatchObject({ ok: 3, meanReward: 0, meanRawReward: 0, keep: false, keepReason: 'all_fail' });
    expect(shaped.groups[0]!.shortestCorrect).toBeUndefined();
  });

  it('ties at L*: every correct sample of the shortest length goes unpenalized; wrong ones are never penalized', () => {
    const { members, results } = batch([
      { group: 'g', tokens: 300, reward: 1 },
      { group: 'g', tokens: 300, reward: 1 },
      { group: 'g', tokens: 50, reward: 0 },
      { group: 'g', tokens: 700, reward: 1 },
      { group: 'g', tokens: 1000, reward: 0 },
    ]);
    const shaped = shapeGroups(members, results, options({ ...PENALTY, lengthPenaltyMax: 0.4 }));
    // L* = 300 (the 50-token sample is wrong); 700 → 0.4 × 400 / 800 = 0.2.
    expect(shaped.groups[0]!.shortestCorrect).toBe(300);
    expect(shaped.results.map((r) => r.reward)).toEqual([1, 1, 0, 0.8, 0]);
    expect(shaped.groups[0]!.meanRawReward).toBeCloseTo(0.6, 12);
    expect(shaped.groups[0]).toMatchObject({ keep: true, keepReason: '' });
  });

  it('a grouped OK sample without response_tokens becomes INVALID instead of being penalized against nothing', () => {
    const { members, results } = batch([
      { group: 'g', tokens: 0, reward: 1 },
      { group: 'g', tokens: 200, reward: 1 },
      { group: '', tokens: 0, reward: 1 },
    ]);
    const shaped = shapeGroups(members, results, options(PENALTY));
    expect(shaped.results[0]).toMatchObject({ status: 'INVALID', reason: MISSING_TOKENS_REASON });
    expect(shaped.results[0]!.reward).toBeUndefined();
    expect(shaped.results[1]!.reward).toBe(1);
    expect(shaped.results[2]).toEqual(results[2]);
    expect(shaped.groups[0]).toMatchObject({ size: 2, ok: 1, invalid: 1, shortestCorrect: 200 });
  });
});

describe('aborted and invalid samples are left out of every statistic', () => {
  it('mean, L*, advantages and the keep verdict see only the OK samples', () => {
    const { members, results } = batch([
      { group: 'g', tokens: 10, status: 'ABORTED' },
      { group: 'g', tokens: 400, reward: 1 },
      { group: 'g', tokens: 20, status: 'INVALID' },
      { group: 'g', tokens: 800, reward: 0 },
      { group: 'g', tokens: 600, reward: 1 },
      { group: 'g', tokens: 900, reward: 0 },
    ]);
    const shaped = shapeGroups(members, results, options({ lengthPenalty: true, maxLength: 1400, advantage: 'mean' }));
    const [group] = shaped.groups;
    expect(group).toMatchObject({ size: 6, ok: 4, aborted: 1, invalid: 1, shortestCorrect: 400, meanRawReward: 0.5, keep: true });
    // 600 tokens: 0.5 × 200 / 1000 = 0.1 → rewards 1, 0, 0.9, 0; mean 0.475.
    expect(shaped.results.map((r) => r.reward)).toEqual([undefined, 1, undefined, 0, 0.9, 0]);
    expect(group!.meanReward).toBeCloseTo(0.475, 12);
    const advantages = shaped.results.map((r) => r.advantage);
    expect(advantages[0]).toBeUndefined();
    expect(advantages[2]).toBeUndefined();
    expect(advantages[1]).toBeCloseTo(0.525, 12);
    expect(advantages[3]).toBeCloseTo(-0.475, 12);
    expect(advantages[4]).toBeCloseTo(0.425, 12);
    expect(shaped.results[0]).toEqual(results[0]);
  });

  it('too few valid samples: a group whose rollouts mostly aborted is not kept, whatever its mean', () => {
    const { members, results } = batch([
      { group: 'g', tokens: 100, reward: 1 },
      { group: 'g', tokens: 100, status: 'ABORTED' },
      { group: 'g', tokens: 100, status: 'ABORTED' },
      { group: 'h', tokens: 100, status: 'ABORTED' },
    ]);
    const shaped = shapeGroups(members, results, options({ minValid: 2 }));
    expect(shaped.groups).toEqual([
      { groupId: 'g', size: 3, ok: 1, aborted: 2, invalid: 0, meanReward: 1, meanRawReward: 1, keep: false, keepReason: 'too_few_valid' },
      { groupId: 'h', size: 1, ok: 0, aborted: 1, invalid: 0, keep: false, keepReason: 'too_few_valid' },
    ]);
  });
});

describe('advantages', () => {
  it('grpo divides by the sample std (n − 1) plus 1e-6; mean is r − mean', () => {
    const { members, results } = batch([
      { group: 'g', tokens: 1, reward: 1 },
      { group: 'g', tokens: 1, reward: 0 },
      { group: 'g', tokens: 1, reward: 0 },
      { group: 'g', tokens: 1, reward: 0 },
    ]);
    const grpo = shapeGroups(members, results, options({ advantage: 'grpo' })).results.map((r) => r.advantage!);
    // mean 0.25; squared deviations 0.5625 + 3 × 0.0625 = 0.75; std = sqrt(0.75 / 3) = 0.5.
    expect(grpo[0]).toBeCloseTo(0.75 / 0.500001, 9);
    expect(grpo[1]).toBeCloseTo(-0.25 / 0.500001, 9);
    const mean = shapeGroups(members, results, options({ advantage: 'mean' })).results.map((r) => r.advantage!);
    expect(mean).toEqual([0.75, -0.25, -0.25, -0.25]);
  });

  it('single-sample groups: advantage 0, no penalty, and too_few_valid under the default min_valid', () => {
    const { members, results } = batch([
      { group: 'a', tokens: 700, reward: 1 },
      { group: 'b', tokens: 300, reward: 0 },
    ]);
    const shaped = shapeGroups(members, results, options({ ...PENALTY, advantage: 'grpo' }));
    expect(shaped.results.map((r) => [r.reward, r.advantage])).toEqual([[1, 0], [0, 0]]);
    expect(shaped.groups.map((g) => [g.groupId, g.keep, g.keepReason])).toEqual([
      ['a', false, 'too_few_valid'],
      ['b', false, 'too_few_valid'],
    ]);
    const kept = shapeGroups(members, results, options({ minValid: 1 }));
    expect(kept.groups.map((g) => g.keepReason)).toEqual(['too_easy', 'all_fail']);
  });

  it('ungrouped samples get no advantage and no shaping', () => {
    const { members, results } = batch([{ group: '', tokens: 900, reward: 1 }]);
    const shaped = shapeGroups(members, results, options({ ...PENALTY, advantage: 'mean' }));
    expect(shaped.results).toEqual(results);
    expect(shaped.groups).toEqual([]);
  });
});

describe('dynamic-sampling window', () => {
  const ofMean = (rewards: number[], input: GroupOptionsInput = {}) => {
    const { members, results } = batch(rewards.map((reward) => ({ group: 'g', tokens: 10, reward })));
    return shapeGroups(members, results, options(input)).groups[0]!;
  };

  it('keeps keep_min < mean <= keep_max, by default (0, 0.8]', () => {
    expect(ofMean([1, 1, 1, 1, 0])).toMatchObject({ keep: true });
    expect(ofMean([1, 1, 1, 1, 1, 0])).toMatchObject({ keep: false, keepReason: 'too_easy' });
    expect(ofMean([0, 0])).toMatchObject({ keep: false, keepReason: 'all_fail' });
    expect(ofMean([0.5, 0.5], { keepMin: 0.5, keepMax: 1 })).toMatchObject({ keep: false, keepReason: 'all_fail' });
    expect(ofMean([1, 1], { keepMax: 1 })).toMatchObject({ keep: true });
  });

  it('applies to the raw mean, so a length penalty does not move a too-easy group into the window', () => {
    const { members, results } = batch([
      { group: 'g', tokens: 100, reward: 1 },
      { group: 'g', tokens: 1100, reward: 1 },
    ]);
    const group = shapeGroups(members, results, options(PENALTY)).groups[0]!;
    expect(group.meanReward).toBe(0.75);
    expect(group).toMatchObject({ meanRawReward: 1, keep: false, keepReason: 'too_easy' });
  });

  it('without options every group is kept and rewards are unchanged', () => {
    const { members, results } = batch([
      { group: 'g', tokens: 100, reward: 1 },
      { group: 'g', tokens: 1100, reward: 1 },
    ]);
    const shaped = shapeGroups(members, results, null);
    expect(shaped.results).toEqual(results);
    expect(shaped.groups[0]).toMatchObject({ meanReward: 1, keep: true, keepReason: '' });
    expect(shaped.groups[0]!.meanRawReward).toBeUndefined();
  });
});

describe('resolveGroupOptions', () => {
  it('applies the defaults', () => {
    expect(options()).toEqual({ lengthPenalty: false, lengthPenaltyMax: 0.5, maxLength: 0, keepMin: 0, keepMax: 0.8, minValid: 2, advantage: '' });
  });

  it.each([
    [{ advantage: 'ppo' }, 'group_options.advantage: expected "", "grpo" or "mean", got "ppo"'],
    [{ lengthPenalty: true }, 'group_options.max_length: required (> 0) when length_penalty is set'],
    [{ lengthPenaltyMax: -1 }, 'group_options.length_penalty_max: expected a finite number ≥ 0'],
    [{ keepMin: 0.8, keepMax: 0.8 }, 'group_options.keep_max: must be greater than keep_min (0.8): the window (keep_min, keep_max] is empty'],
  ])('rejects %j', (input, error) => {
    expect(resolveGroupOptions(input)).toEqual({ ok: false, error });
  });
});

describe('GroupStream', () => {
  const rollouts: Rollout[] = [
    { group: 'g', tokens: 100, reward: 1 },
    { group: 'h', tokens: 100, reward: 0 },
    { group: '', tokens: 5, reward: 1 },
    { group: 'g', tokens: 600, reward: 1 },
    { group: 'h', tokens: 100, status: 'ABORTED' },
    { group: 'g', tokens: 300, reward: 0 },
  ];

  it('with options: holds a group until complete, then sends it shaped, the summary on its last result', () => {
    const { members, results } = batch(rollouts);
    const opts = options({ lengthPenalty: true, maxLength: 1100, advantage: 'mean' });
    const stream = new GroupStream(members, opts);
    const arrival = [5, 2, 1, 3, 4, 0];
    const sent = arrival.map((i) => stream.push(results[i]!));
    expect(sent.map((items) => items.map((item) => [item.result.index, item.group?.groupId ?? null]))).toEqual([
      [],
      [[2, null]],
      [],
      [],
      [[1, null], [4, 'h']],
      [[0, null], [3, null], [5, 'g']],
    ]);
    const batchShaped = shapeGroups(members, results, opts);
    const streamed = new Map<number, ShapedResult>(sent.flat().map((item) => [item.result.index, item.result]));
    expect([...streamed.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const result of batchShaped.results) expect(streamed.get(result.index)).toEqual(result);
    const summaries = sent.flat().flatMap((item) => (item.group ? [item.group] : []));
    expect(summaries.sort((a, b) => a.groupId.localeCompare(b.groupId))).toEqual(batchShaped.groups);
  });

  it('without options: sends every result at once, the summary on the one that completes its group', () => {
    const { members, results } = batch(rollouts);
    const stream = new GroupStream(members, null);
    const sent = results.map((r) => stream.push(r));
    expect(sent.map((items) => items.map((item) => [item.result.index, item.group?.groupId ?? null]))).toEqual([
      [[0, null]],
      [[1, null]],
      [[2, null]],
      [[3, null]],
      [[4, 'h']],
      [[5, 'g']],
    ]);
    expect(sent.flat().map((item) => item.result)).toEqual(results);
  });
});
