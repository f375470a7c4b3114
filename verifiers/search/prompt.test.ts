import { DEFAULT_PROMPT, goldText, PLACEHOLDERS, renderPrompt, searchGradeSchema } from './prompt';

const fields = { question: 'Who wrote Dune?', correctAnswer: 'Frank Herbert', response: 'It was Frank Herbert.' };

describe('the search grading prompt', () => {
  it('fills each placeholder of the default prompt once, each inside its tag', () => {
    const out = renderPrompt(DEFAULT_PROMPT, fields);
    expect(out).toContain('<question>\nWho wrote Dune?\n</question>');
    expect(out).toContain('<correct_answer>\nFrank Herbert\n</correct_answer>');
    expect(out).toContain('<response>\nIt was Frank Herbert.\n</response>');
    for (const p of PLACEHOLDERS) expect(out).not.toContain(p);
  });

  it('leaves a placeholder written inside a filled-in value as it is: a response cannot pull the gold in', () => {
    const out = renderPrompt('{question}|{correct_answer}|{response}', { question: 'q {response}', correctAnswer: 'gold', response: 'see {correct_answer}' });
    expect(out).toBe('q {response}|gold|see {correct_answer}');
  });

  it('copies values literally, with no $-patterns of String.replace', () => {
    expect(renderPrompt('[{response}]', { ...fields, response: "$& $' $` $1 $$" })).toBe("[$& $' $` $1 $$]");
  });

  it('fills every occurrence of a placeholder in a custom template and leaves other braces alone', () => {
    expect(renderPrompt('{response} / {response} / {other} / {Question}', fields)).toBe('It was Frank Herbert. / It was Frank Herbert. / {other} / {Question}');
  });

  it('writes a list answer one item per line, a single answer as it is', () => {
    expect(goldText('Paris')).toBe('Paris');
    expect(goldText(['Paris', 'Lyon'])).toBe('- Paris\n- Lyon');
    expect(goldText([])).toBe('');
  });

  it('takes a reply with reasoning first and a score in [0, 1], nothing else', () => {
    // Constrained decoding writes fields in schema order: the judge says why before it commits.
    expect(Object.keys(searchGradeSchema.jsonSchema.properties as object)).toEqual(['reasoning', 'score']);
    const parse = (v: unknown) => searchGradeSchema.zod.safeParse(v).success;
    expect(parse({ reasoning: 'same author', score: 0.5 })).toBe(true);
    expect(parse({ reasoning: 'x', score: 1.5 })).toBe(false);
    expect(parse({ reasoning: 'x', score: -0.1 })).toBe(false);
    expect(parse({ reasoning: 'x', score: 1, verdict: 'CORRECT' })).toBe(false);
  });
});
