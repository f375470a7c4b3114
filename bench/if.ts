import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../core/json';
import type { Sample } from '../core/sample';
import type { Constraint } from '../rubrics/constraint';
import { evaluate, looseVariants, type Mode } from '../rubrics/evaluate';
import { pyStrip } from '../rubrics/text/py';
import { constraintById } from '../rubrics/registry';
import { presentKwargs } from '../verifiers/if/label';
import { heading, row } from './timing';

/**
 * Instruction checks per second over the IF conformance set (every IFEval and IFBench test
 * instruction with a real model response), strict and loose, on one thread, beside two baselines:
 *  - the reference Python checkers, which cannot run here: their figure is fixed, from
 *    ../shared/bench/README.md, and printed with the date it was measured;
 *  - a naive run of the same checks measured in this run (`naiveCheck`).
 * The reference figures leave out `words:start_verb` (NLTK's POS tagger dominated the older
 * IFBench figure and made any speed-up look ~3.5× larger), so the ratio rows leave it out too;
 * its rows are timed on their own line.
 */
const REFERENCE = {
  source: '../shared/bench/README.md',
  date: '2026-12-03',
  checksPerS: { ifeval: { strict: 1606, loose: 1037 }, ifbench: { strict: 4190, loose: 1385 } } as Record<'ifeval' | 'ifbench', Record<Mode, number>>,
};
const NOT_IN_REFERENCE = 'words:start_verb';
const GOAL_RATIO = 20;
const FILES = ['ifeval', 'ifbench'] as const;

interface Row {
  key: number | string;
  response: string;
  instruction_id: string;
  kwargs: JsonObject;
}

function conformancePath(file: string): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return path.resolve(dir, '..', 'shared', 'conformance', 'if', `${file}_verdicts.jsonl`);
}

export function loadIfRows(file: (typeof FILES)[number]): Row[] {
  return readFileSync(conformancePath(file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
}

/**
 * The conformance set as Samples for the engine: one `if` sample per instruction, its label one
 * constraint rubric, so samples/s there is instruction checks/s (plus the engine's overhead).
 */
export function loadIfBatch(mode: Mode = 'strict'): Sample[] {
  return FILES.flatMap((file) =>
    loadIfRows(file).map((r, i) => ({
      id: `${file}-${r.key}-${i}`,
      verifier: 'if',
      response: r.response,
      label: { mode, rubrics: [{ kind: 'constraint', id: r.instruction_id, kwargs: r.kwargs }] },
      groupId: `${file}-${r.key}`,
      responseTokens: r.response.length >> 2,
      metadata: {},
    })),
  );
}

interface Prepared {
  constraint: Constraint;
  response: string;
  kwargs: unknown;
}

function prepare(rows: readonly Row[]): Prepared[] {
  return rows.map((r) => {
    const constraint = constraintById(r.instruction_id);
    if (!constraint) throw new Error(`unknown instruction id ${r.instruction_id}`);
    return { constraint, response: r.response, kwargs: constraint.kwargs.parse(presentKwargs(r.kwargs)) };
  });
}

type Check = (item: Prepared, mode: Mode) => boolean;

const verdictCheck: Check = ({ constraint, response, kwargs }, mode) => evaluate(constraint, response, kwargs, mode).pass;

/**
 * The naive baseline: the same checkers run the way the reference runs them, with nothing shared
 * between analyses. There is no memo scope, so every loose variant is split into sentences and
 * words again, and loose mode tries all eight variants in order, duplicates included, until one
 * passes. What it leaves to Verdict's speed is the text analysis itself.
 */
const naiveCheck: Check = ({ constraint, response, kwargs }, mode) => {
  const variants = mode === 'strict' ? [response] : looseVariants(response);
  for (const variant of variants) if (pyStrip(variant) !== '' && constraint.check(variant, kwargs).pass) return true;
  return false;
};

/**
 * The checkers that take most of one pass, with their share of it: each checker's rows are
 * timed on their own, in CPU time (the best of three runs of at least 20 ms), and added up.
 * What to profile first.
 */
function heaviest(items: readonly Prepared[], mode: Mode, top: number): string {
  const byId = new Map<string, Prepared[]>();
  for (const item of items) byId.set(item.constraint.id, [...(byId.get(item.constraint.id) ?? []), item]);
  const spent: Array<[string, number]> = [];
  for (const [id, rows] of byId) {
    let best = Infinity;
    for (let run = 0; run < 3; run++) {
      const start = cpuSeconds();
      let passes = 0;
      let seconds = 0;
      do {
        for (const item of rows) verdictCheck(item, mode);
        passes++;
        seconds = cpuSeconds() - start;
      } while (seconds < 0.02);
      best = Math.min(best, seconds / passes);
    }
    spent.push([id, best]);
  }
  const total = spent.reduce((sum, [, seconds]) => sum + seconds, 0);
  return spent
    .sort((x, y) => y[1] - x[1])
    .slice(0, top)
    .map(([id, seconds]) => `${id} ${((100 * seconds) / total).toFixed(0)}%`)
    .join(', ');
}

function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/**
 * Checks per CPU-second of this process (the reference figures are per core, and this machine is
 * shared, so CPU time is what compares): the best of a few passes of about 0.3 s each.
 */
function checksPerSecond(items: readonly Prepared[], mode: Mode, check: Check): number {
  let best = 0;
  for (let run = 0; run < 5; run++) {
    let checks = 0;
    const start = cpuSeconds();
    let seconds = 0;
    do {
      for (const item of items) check(item, mode);
      checks += items.length;
      seconds = cpuSeconds() - start;
    } while (seconds < 0.3);
    best = Math.max(best, checks / seconds);
  }
  return best;
}

export async function run(): Promise<void> {
  heading('if: IFEval + IFBench instruction checks, one thread, checks per CPU-second');
  console.log(
    `reference: the Python checkers, ${REFERENCE.source} (measured ${REFERENCE.date}), over the rows without ${NOT_IN_REFERENCE}; ` +
      'naive: the same checkers with no memo and all eight loose variants, measured now',
  );
  const widths = [10, 8, 8, 11, 11, 11, 13, 16];
  console.log(row(['set', 'mode', 'checks', 'Verdict/s', 'naive/s', 'vs naive', 'reference/s', 'vs reference'], widths));
  for (const file of FILES) {
    const rows = loadIfRows(file);
    const items = prepare(rows.filter((r) => r.instruction_id !== NOT_IN_REFERENCE));
    const unreferenced = prepare(rows.filter((r) => r.instruction_id === NOT_IN_REFERENCE));
    // Warm-up: loads the Punkt parameters and stop words, and lets V8 compile the checkers, for a
    // second of CPU in both modes. After a single loose pass V8 was still compiling, on threads
    // whose CPU time this process is charged, while the first rate was measured: that rate,
    // Verdict's strict one, came out about a tenth under the same checks measured right after it.
    const warmUp = cpuSeconds();
    do {
      for (const mode of ['strict', 'loose'] as const) for (const item of [...items, ...unreferenced]) for (const check of [verdictCheck, naiveCheck]) check(item, mode);
    } while (cpuSeconds() - warmUp < 1);
    for (const mode of ['strict', 'loose'] as const) {
      const rate = checksPerSecond(items, mode, verdictCheck);
      const naive = checksPerSecond(items, mode, naiveCheck);
      const reference = REFERENCE.checksPerS[file][mode];
      const ratio = rate / reference;
      console.log(
        row(
          [
            file,
            mode,
            items.length,
            rate.toFixed(0),
            naive.toFixed(0),
            `${(rate / naive).toFixed(2)}×`,
            reference,
            `${ratio.toFixed(1)}×${ratio >= GOAL_RATIO ? '' : ` (goal ${GOAL_RATIO}×)`}`,
          ],
          widths,
        ),
      );
      if (unreferenced.length > 0) {
        const alone = checksPerSecond(unreferenced, mode, verdictCheck);
        console.log(row(['', '', unreferenced.length, alone.toFixed(0), '', '', '', `(${NOT_IN_REFERENCE} rows alone; no reference figure)`], widths));
      }
      console.log(`  heaviest checkers (${file} ${mode}, share of a pass): ${heaviest(items, mode, 5)}`);
    }
  }
}

if (require.main === module) void run();
