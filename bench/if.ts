import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../core/json';
import type { Sample } from '../core/sample';
import type { Constraint } from '../rubrics/constraint';
import { evaluate, type Mode } from '../rubrics/evaluate';
import { constraintById } from '../rubrics/registry';
import { presentKwargs } from '../verifiers/if/label';
import { heading, row } from './timing';

/**
 * Instruction checks per second over the IF conformance set (every IFEval and IFBench test
 * instruction with a real model response), strict and loose, on one thread. The baseline is the
 * reference Python checkers on this kind of machine (../shared/bench/README.md); the goal is 20×.
 */
const REFERENCE_CHECKS_PER_S: Record<'ifeval' | 'ifbench', Record<Mode, number>> = {
  ifeval: { strict: 1640, loose: 1083 },
  ifbench: { strict: 1216, loose: 366 },
};
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

function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/**
 * Checks per CPU-second of this thread (the reference figures are per core, and this machine is
 * shared, so CPU time is what compares): the best of a few passes of about 0.3 s each.
 */
function checksPerSecond(items: readonly Prepared[], mode: Mode): number {
  let best = 0;
  for (let run = 0; run < 5; run++) {
    let checks = 0;
    const start = cpuSeconds();
    let seconds = 0;
    do {
      for (const { constraint, response, kwargs } of items) evaluate(constraint, response, kwargs, mode);
      checks += items.length;
      seconds = cpuSeconds() - start;
    } while (seconds < 0.3);
    best = Math.max(best, checks / seconds);
  }
  return best;
}

export async function run(): Promise<void> {
  heading('if: IFEval + IFBench instruction checks, one thread');
  const widths = [10, 8, 8, 16, 16, 10];
  console.log(row(['set', 'mode', 'checks', 'checks/s', 'reference/s', 'ratio'], widths));
  for (const file of FILES) {
    const items = prepare(loadIfRows(file));
    // Warm-up: loads the Punkt parameters and stop words, and lets V8 compile the checkers.
    for (const { constraint, response, kwargs } of items) evaluate(constraint, response, kwargs, 'loose');
    for (const mode of ['strict', 'loose'] as const) {
      const rate = checksPerSecond(items, mode);
      const reference = REFERENCE_CHECKS_PER_S[file][mode];
      const ratio = rate / reference;
      console.log(
        row([file, mode, items.length, rate.toFixed(0), reference, `${ratio.toFixed(1)}×${ratio >= GOAL_RATIO ? '' : ` (goal ${GOAL_RATIO}×)`}`], widths),
      );
    }
  }
}

if (require.main === module) void run();
