import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Constraint } from '../../rubrics/constraint';
import { evaluate, type Mode } from '../../rubrics/evaluate';
import { constraintById } from '../../rubrics/registry';
import { presentKwargs } from '../../verifiers/if/label';
import { repoRoot, sharedDir } from './helpers';

interface Row {
  key: number | string;
  response: string;
  instruction_id: string;
  kwargs: Record<string, unknown>;
  strict_pass: boolean;
  loose_pass: boolean;
}

interface Difference {
  file: string;
  key: number | string;
  instruction_id: string;
  mode: Mode;
  reason: string;
}

const FILES = ['ifeval', 'ifbench'] as const;

function rows(file: string): Row[] {
  return readFileSync(join(sharedDir(), 'conformance', 'if', `${file}_verdicts.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
}

const differences = (
  JSON.parse(readFileSync(join(repoRoot(), 'test', 'if', 'conformance-differences.json'), 'utf8')) as { differences: Difference[] }
).differences;
const listed = new Map(differences.map((d) => [`${d.file}|${d.key}|${d.instruction_id}|${d.mode}`, d]));

describe('conformance with the reference IFEval and IFBench checkers', () => {
  it('agrees on every instruction verdict of ../shared/conformance/if except the listed deliberate differences', () => {
    let total = 0;
    let agree = 0;
    const unlisted: string[] = [];
    const seen = new Set<string>();
    const perFile: Record<string, { rows: number; agree: number }> = {};
    for (const file of FILES) {
      const all = rows(file);
      perFile[file] = { rows: all.length, agree: 0 };
      for (const row of all) {
        const constraint = constraintById(row.instruction_id) as Constraint;
        expect(constraint).toBeDefined();
        const kwargs = constraint.kwargs.parse(presentKwargs(row.kwargs));
        for (const mode of ['strict', 'loose'] as const) {
          total++;
          const got = evaluate(constraint, row.response, kwargs, mode).pass;
          const want = mode === 'strict' ? row.strict_pass : row.loose_pass;
          const id = `${file}|${row.key}|${row.instruction_id}|${mode}`;
          if (got === want) {
            agree++;
            (perFile[file] as { agree: number }).agree++;
            continue;
          }
          seen.add(id);
          if (!listed.has(id)) unlisted.push(`${id}: reference ${want}, Verdict ${got}`);
        }
      }
    }
    const stale = [...listed.keys()].filter((id) => !seen.has(id));
    const summary = Object.entries(perFile)
      .map(([f, s]) => `${f}: ${s.agree}/${s.rows * 2}`)
      .join(', ');
    console.log(
      `IF conformance: ${agree}/${total} verdicts agree (${((100 * agree) / total).toFixed(2)}%; ${summary}); ${seen.size} deliberate differences`,
    );
    expect(total).toBe(2 * 1168);
    expect(unlisted).toEqual([]);
    // An entry that agrees again must leave the list, so the list stays the truth.
    expect(stale).toEqual([]);
  });
});
