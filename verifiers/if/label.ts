import { z } from 'zod';
import { constraintById, constraintIds } from '../../rubrics/lookup';

/** The references drop kwargs set to null (IFBench rows carry unused ones as None). */
export function presentKwargs(kwargs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(kwargs).filter(([, v]) => v !== null && v !== undefined));
}

const constraintRubric = z
  .strictObject({
    kind: z.literal('constraint'),
    id: z.string().describe('An IFEval or IFBench instruction id, e.g. "length_constraints:number_words"'),
    kwargs: z.record(z.string(), z.unknown()).default({}).describe('The instruction kwargs as the dataset row spells them'),
  })
  .superRefine((rubric, ctx) => {
    const constraint = constraintById(rubric.id);
    if (!constraint) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: `unknown instruction id "${rubric.id}" (known: ${constraintIds().length} IFEval/IFBench ids)` });
      return;
    }
    const parsed = constraint.kwargs.safeParse(presentKwargs(rubric.kwargs));
    if (parsed.success) return;
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) ctx.addIssue({ code: 'custom', path: ['kwargs', ...issue.path, key], message: 'unknown kwarg' });
      } else ctx.addIssue({ code: 'custom', path: ['kwargs', ...issue.path], message: issue.message.replace(/^Invalid input: /, '') });
    }
  });

const pythonRubric = z.strictObject({
  kind: z.literal('python'),
  source: z.string().min(1).describe('Python module source defining the entry function'),
  entry: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a Python identifier').default('check').describe('Function called as entry(response, messages) → bool'),
});

const jsRubric = z.strictObject({
  kind: z.literal('js'),
  source: z.string().min(1).describe('A JavaScript function expression, called as f(response, messages) → boolean'),
});

const judgeRubric = z.strictObject({
  kind: z.literal('judge'),
  question: z.string().min(1).describe('A requirement only an LLM judge can decide, asked of the final response'),
});

export const rubricSchema = z.discriminatedUnion('kind', [constraintRubric, pythonRubric, jsRubric, judgeRubric]);

export const ifLabel = z.strictObject({
  rubrics: z.array(rubricSchema).min(1).describe('Every rubric must pass for reward 1'),
  mode: z.enum(['strict', 'loose']).default('strict').describe('How constraint rubrics are applied (IFEval strict or loose)'),
});

export type Rubric = z.output<typeof rubricSchema>;
export type IfLabel = z.output<typeof ifLabel>;
export type ConstraintRubric = Extract<Rubric, { kind: 'constraint' }>;
export type CodeRubric = Extract<Rubric, { kind: 'python' | 'js' }>;
export type JudgeRubric = Extract<Rubric, { kind: 'judge' }>;
