import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { Json } from '../core/json';
import { checkAgainst } from '../core/label';
import { createServices } from '../services/bootstrap';
import { ConfigError, type VerdictConfig } from '../services/config';
import type { ChatMessage } from '../core/chat';
import type { RewardModelPort } from '../core/ports/reward-model';
import { promptMessages, replyFor } from '../verifiers/rlhf/conversation';

/**
 * Offline preference-pair analysis (`verdict score --pairs`): the raw reward-model score of each
 * chosen and rejected response, their means and the accuracy (chosen > rejected) — how well the
 * reward model separates a candidate prompt set's preferences before training on it.
 */

const side = z.union([z.string(), promptMessages]);

/**
 * One JSONL line. `chosen` / `rejected` are a response (appended to `prompt` as the assistant
 * turn) or a whole conversation (after `prompt`, when given). Other fields (ids) are ignored.
 */
const pairLine = z
  .object({ prompt: z.union([z.string(), promptMessages]).optional(), chosen: side, rejected: side })
  .refine((p) => p.prompt !== undefined || (typeof p.chosen !== 'string' && typeof p.rejected !== 'string'), {
    message: 'required when chosen or rejected is a string',
    path: ['prompt'],
  });

type PairLine = z.output<typeof pairLine>;

export interface PairFailure {
  line: number;
  reason: string;
}

export interface PairsReport {
  /** Lines read (blank lines skipped). */
  pairs: number;
  /** Pairs with both sides scored: the means and the accuracy are over these. */
  scored: number;
  /** Pairs not scored: a bad line, or a side the reward model did not score (ABORTED). */
  failed: number;
  meanChosen: number | null;
  meanRejected: number | null;
  /** Fraction of scored pairs with chosen > rejected (a tie counts as wrong). */
  accuracy: number | null;
  /** The first failures, for the operator to look at. */
  failures: PairFailure[];
}

const MAX_LISTED_FAILURES = 20;

function conversationOf(prompt: PairLine['prompt'], response: PairLine['chosen'], stripThink: boolean): ChatMessage[] {
  const head: ChatMessage[] = prompt === undefined ? [] : typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : prompt;
  if (typeof response !== 'string') return [...head, ...response];
  return [...head, { role: 'assistant', content: replyFor(response, stripThink).content }];
}

/**
 * Scores every pair through `endpoint`. At most `window` pairs are outstanding at once, so a large
 * file neither sits in memory nor starts its per-sample deadlines long before it is sent.
 */
export async function scorePairs(
  lines: AsyncIterable<string> | Iterable<string>,
  endpoint: RewardModelPort,
  window = 1024,
): Promise<PairsReport> {
  let pairs = 0;
  let scored = 0;
  let wins = 0;
  let sumChosen = 0;
  let sumRejected = 0;
  const failures: PairFailure[] = [];
  let failed = 0;
  const fail = (line: number, reason: string) => {
    failed++;
    if (failures.length < MAX_LISTED_FAILURES) failures.push({ line, reason });
  };

  const outstanding = new Set<Promise<void>>();
  const scorePair = async (pair: PairLine, line: number) => {
    const [chosen, rejected] = await Promise.all([
      endpoint.score(conversationOf(pair.prompt, pair.chosen, endpoint.stripThink)),
      endpoint.score(conversationOf(pair.prompt, pair.rejected, endpoint.stripThink)),
    ]);
    if (!chosen.ok) return fail(line, `chosen: ${chosen.reason}: ${chosen.message}`);
    if (!rejected.ok) return fail(line, `rejected: ${rejected.reason}: ${rejected.message}`);
    scored++;
    sumChosen += chosen.score;
    sumRejected += rejected.score;
    if (chosen.score > rejected.score) wins++;
  };

  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber++;
    if (text.trim() === '') continue;
    pairs++;
    let value: Json;
    try {
      value = JSON.parse(text) as Json;
    } catch (error) {
      fail(lineNumber, `not valid JSON (${(error as Error).message})`);
      continue;
    }
    const pair = checkAgainst(pairLine, value, 'pair');
    if (!pair.ok) {
      fail(lineNumber, pair.error);
      continue;
    }
    const task = scorePair(pair.value, lineNumber).finally(() => outstanding.delete(task));
    outstanding.add(task);
    if (outstanding.size >= window) await Promise.race(outstanding);
  }
  await Promise.all(outstanding);
  return {
    pairs,
    scored,
    failed,
    meanChosen: scored > 0 ? sumChosen / scored : null,
    meanRejected: scored > 0 ? sumRejected / scored : null,
    accuracy: scored > 0 ? wins / scored : null,
    failures,
  };
}

export function formatPairsReport(report: PairsReport): string {
  const number = (value: number | null) => (value === null ? 'n/a' : value.toFixed(4));
  const lines = [
    `pairs:         ${report.pairs} (${report.scored} scored, ${report.failed} failed)`,
    `mean chosen:   ${number(report.meanChosen)}`,
    `mean rejected: ${number(report.meanRejected)}`,
    `accuracy:      ${number(report.accuracy)} (chosen > rejected)`,
  ];
  for (const failure of report.failures) lines.push(`  line ${failure.line}: ${failure.reason}`);
  if (report.failed > report.failures.length) lines.push(`  … ${report.failed - report.failures.length} more failures`);
  return lines.join('\n');
}

export interface PairsOptions {
  /** JSONL path, or "-" for stdin. */
  input: string;
  config: VerdictConfig;
  /** Reward-model endpoint name; the config's default when absent. */
  endpoint?: string;
}

/** `verdict score --pairs`: builds the reward model from the config and scores the file. */
export async function runPairs(options: PairsOptions): Promise<PairsReport> {
  const set = await createServices(options.config);
  try {
    const models = set.services.rewardModels;
    if (!models) throw new ConfigError('rewardModel: required to score preference pairs');
    const endpoint = models.get(options.endpoint);
    if (!endpoint) {
      throw new ConfigError(`--endpoint: no reward-model endpoint "${options.endpoint}" (known: ${models.names().join(', ')})`);
    }
    const input = options.input === '-' ? process.stdin : createReadStream(options.input);
    return await scorePairs(createInterface({ input, crlfDelay: Infinity }), endpoint);
  } finally {
    await set.close();
  }
}
