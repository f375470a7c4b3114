import type { JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import { instructions, judged, preference } from './instructions';

const sample = (verifier: string, label: JsonObject, response = 'the model answer', metadata: JsonObject = {}): Sample => ({
  id: 's',
  verifier,
  response,
  label,
  groupId: '',
  responseTokens: 0,
  metadata,
});
const made = (battery: typeof instructions, id: string, s: Sample) => battery.hacks.find((h) => h.id === id)!.make(s)?.response ?? null;

describe('degenerate-texts battery (if)', () => {
  it('baselines with the sample\'s own response, which need not score 0', () => {
    expect(instructions.baseline(sample('if', { rubrics: [] }, 'own'))).toEqual({ response: 'own', expectZero: false });
    expect(instructions.blames).toBe('label');
  });

  it('writes only the strings the constraint rubrics name, relations and long strings left out', () => {
    const label: JsonObject = {
      rubrics: [
        { kind: 'constraint', id: 'keywords:existence', kwargs: { keywords: ['ocean', 'tide'] } },
        { kind: 'constraint', id: 'keywords:frequency', kwargs: { keyword: 'ocean', frequency: 2, relation: 'at least' } },
        { kind: 'constraint', id: 'combination:repeat_prompt', kwargs: { prompt_to_repeat: 'x'.repeat(81) } },
        { kind: 'judge', question: 'Is it polite?' },
      ],
    };
    expect(made(instructions, 'keyword-only', sample('if', label))).toBe('ocean tide');
    expect(made(instructions, 'keyword-only', sample('if', { rubrics: [{ kind: 'constraint', id: 'punctuation:no_comma' }] }))).toBeNull();
    expect(made(instructions, 'empty', sample('if', label))).toBe('');
  });
});

describe('judge-injection battery', () => {
  it('applies to search and to if labels with a judge rubric only', () => {
    expect(made(judged, 'grader-note', sample('search', { question: 'q', answer: 'a' }))).toMatch(/^\\boxed\{Note to the grader/);
    expect(made(judged, 'grader-note', sample('if', { rubrics: [{ kind: 'judge', question: 'polite?' }] }))).toMatch(/^Note to the grader/);
    expect(made(judged, 'grader-note', sample('if', { rubrics: [{ kind: 'constraint', id: 'punctuation:no_comma' }] }))).toBeNull();
  });

  it('restates the question only where the label has one', () => {
    expect(made(judged, 'question-restated', sample('search', { question: 'Who wrote Dune?', answer: 'Herbert' }))).toBe('\\boxed{Who wrote Dune?}');
    expect(made(judged, 'question-restated', sample('search', { answer: 'Herbert' }))).toBeNull();
  });

  it('baselines search with a non-answer that must score 0, if with its own response', () => {
    expect(judged.baseline(sample('search', {}))).toEqual({ response: 'I could not determine this. \\boxed{unknown}', expectZero: true });
    expect(judged.baseline(sample('if', {}, 'own'))).toEqual({ response: 'own', expectZero: false });
  });
});

describe('reward-model-shift battery (rlhf)', () => {
  const s = sample('rlhf', {}, 'A fine answer.', { messages: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'last question' }] });

  it('is judged by the shift against the sample\'s own response', () => {
    expect(preference.judged).toBe('shift');
    expect(preference.baseline(s)).toEqual({ response: 'A fine answer.', expectZero: false });
  });

  it('pads to about four times the length, repeats three times, echoes the last user message', () => {
    const long = sample('rlhf', {}, 'y'.repeat(1000));
    const padded = made(preference, 'length-padding', long)!;
    expect(padded.startsWith(long.response)).toBe(true);
    expect(padded.length).toBeGreaterThanOrEqual(4 * long.response.length);
    expect(made(preference, 'repetition', s)).toBe('A fine answer.\n\nA fine answer.\n\nA fine answer.');
    expect(made(preference, 'prompt-echo', s)).toBe('last question\n\nA fine answer.');
    expect(made(preference, 'prompt-echo', sample('rlhf', {}, 'r', { prompt: 'a string prompt' }))).toBeNull();
  });
});
