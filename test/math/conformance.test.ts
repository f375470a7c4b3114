import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mathLabel, scoreMath } from '../../verifiers/math';
import { repoRoot, sharedPath } from './repo';

/** Math-Verify's own test cases (../shared/conformance/math/README.md). */
interface Case {
  id: string;
  gold: string;
  prediction: string;
  expected: boolean;
  precision: number;
  strict: boolean;
}

const TARGET = 0.97;

const cases: Case[] = readFileSync(sharedPath('conformance', 'math', 'mathverify_cases.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Case);

/** Case ids listed in verifiers/math/CONFORMANCE.md, each with its reason. */
const listed = new Set(
  [...readFileSync(path.join(repoRoot(), 'verifiers', 'math', 'CONFORMANCE.md'), 'utf8').matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1] as string),
);

describe('math conformance with Math-Verify', () => {
  // Every case maps onto Verdict's label: gold, precision (Math-Verify's float_rounding), strict.
  // Verdict has one extraction for all of Math-Verify's modes and always compares sets with relations.
  const verdicts = cases.map((c) => {
    const outcome = scoreMath(c.prediction, mathLabel.parse({ gold: c.gold, precision: c.precision, strict: c.strict }));
    return { id: c.id, expected: c.expected, got: outcome.status === 'OK' && outcome.reward === 1, outcome };
  });
  const disagreements = verdicts.filter((v) => v.got !== v.expected);
  const agreement = 1 - disagreements.length / cases.length;

  it(`agrees on at least ${TARGET * 100}% of the ${cases.length} cases`, () => {
    // eslint-disable-next-line no-console
    console.log(
      `math conformance: ${cases.length - disagreements.length}/${cases.length} = ${(agreement * 100).toFixed(1)}% agreement\n` +
        disagreements.map((d) => `  ${d.id}: Math-Verify ${d.expected}, Verdict ${d.got} (${d.outcome.reason})`).join('\n'),
    );
    expect(cases.length).toBe(270);
    expect(agreement).toBeGreaterThanOrEqual(TARGET);
  });

  it('lists every disagreement, with its reason, in verifiers/math/CONFORMANCE.md', () => {
    expect(disagreements.map((d) => d.id).filter((id) => !listed.has(id))).toEqual([]);
  });

  it('lists no case that now agrees', () => {
    const disagreeing = new Set(disagreements.map((d) => d.id));
    expect([...listed].filter((id) => !disagreeing.has(id))).toEqual([]);
  });
});
