import type { Constraint } from './constraint';
import { COUNT_CONSTRAINTS } from './ifbench/count';
import { CUSTOM_CONSTRAINTS } from './ifbench/custom';
import { FORMAT_CONSTRAINTS as IFBENCH_FORMAT } from './ifbench/format';
import { REPEAT_CONSTRAINTS } from './ifbench/repeat';
import { SENTENCE_CONSTRAINTS } from './ifbench/sentences';
import { WORD_CONSTRAINTS } from './ifbench/words';
import { FORMAT_CONSTRAINTS as IFEVAL_FORMAT } from './ifeval/format';
import { KEYWORD_CONSTRAINTS } from './ifeval/keywords';
import { LENGTH_CONSTRAINTS } from './ifeval/length';
import { MISC_CONSTRAINTS } from './ifeval/misc';

/** Every constraint by instruction id: the 25 IFEval types and the 58 IFBench out-of-distribution types. */
export const CONSTRAINTS: readonly Constraint[] = [
  ...KEYWORD_CONSTRAINTS,
  ...LENGTH_CONSTRAINTS,
  ...IFEVAL_FORMAT,
  ...MISC_CONSTRAINTS,
  ...COUNT_CONSTRAINTS,
  ...SENTENCE_CONSTRAINTS,
  ...WORD_CONSTRAINTS,
  ...IFBENCH_FORMAT,
  ...CUSTOM_CONSTRAINTS,
  ...REPEAT_CONSTRAINTS,
];

const BY_ID = new Map<string, Constraint>();
for (const c of CONSTRAINTS) {
  if (BY_ID.has(c.id)) throw new Error(`constraint "${c.id}" registered twice`);
  BY_ID.set(c.id, c);
}

export function constraintById(id: string): Constraint | undefined {
  return BY_ID.get(id);
}

export function constraintIds(): string[] {
  return [...BY_ID.keys()];
}
