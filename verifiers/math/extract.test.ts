import { extractAnswer, extractGold, findMathSpans, findBoxes } from './extract';

const last = (text: string) => extractAnswer(text, 'boxed_then_last');

describe('math extraction: boxes', () => {
  it('takes the last box, with balanced and nested braces', () => {
    expect(last('first \\boxed{1}. Let me check this once more: \\boxed{\\frac{1}{\\sqrt{2}}}.')).toEqual({ text: '\\frac{1}{\\sqrt{2}}', rule: 'boxed', plain: false });
    expect(last('\\fbox{7}')?.text).toBe('7');
    expect(last('\\boxed{\\boxed{3}}')?.text).toBe('\\boxed{3}');
  });

  it('joins boxes that list one answer, not boxes far apart without a connective', () => {
    expect(last('\\boxed{1} and \\boxed{2}')?.text).toBe('1, 2');
    expect(last('\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}')?.text).toBe('(2, 2), (6, 2)');
    expect(last('\\boxed{1} no no no no no \\boxed{2}')?.text).toBe('2');
    expect(last('so \\boxed{004}.\n\nTherefore \\boxed{004}')?.text).toBe('004');
    expect(last('So \\boxed{5} is wrong, the correct answer is \\boxed{6}.')?.text).toBe('6');
    expect(last('I first got \\boxed{5}, but rechecking gives \\boxed{6}.')?.text).toBe('6');
  });

  it('keeps a percent written after the box', () => {
    expect(last('$\\boxed{28}$ pct')?.text).toBe('28\\%');
  });

  it('runs an unclosed last box to the end of the text', () => {
    expect(findBoxes('\\boxed{W(n) = 1')).toEqual([{ start: 0, end: 15, content: 'W(n) = 1' }]);
  });

  it('in boxed mode, takes nothing but a box', () => {
    expect(extractAnswer('The final answer is $5$. I hope it is correct.', 'boxed')).toBeNull();
    expect(extractAnswer('so \\boxed{5}', 'boxed')?.text).toBe('5');
  });
});

describe('math extraction: fallbacks', () => {
  it('prefers a later "final answer is X. I hope" over an earlier box', () => {
    const r = last('interest is \\boxed{255}. Final Answer: The final answer is $10,455$. I hope it is correct.');
    expect(r).toMatchObject({ text: '10,455', rule: 'final_answer' });
  });

  it('reads "final answer ... is X" and "Answer: X" statements', () => {
    expect(last('Final Answer: The volume of $ABCDEFGH$ is 120. I hope it is correct.')).toMatchObject({ text: '120', rule: 'final_answer', plain: true });
    expect(last('Final Answer: Jane started growing Sphere 3 hours ago.')).toMatchObject({ text: '3', rule: 'answer_anchor' });
  });

  it('takes whichever comes last of the last math span and the last bare number', () => {
    expect(last('so $d = \\frac{90}{n}$. Therefore there are 12 sequences.')).toMatchObject({ text: '12', rule: 'number' });
    expect(last('we get 12 and so $(7, 6)$.')).toMatchObject({ text: '(7, 6)', rule: 'math' });
    expect(last('is 2/3. <|im_start|>user')?.text).toBe('2/3');
  });

  it('joins math spans connected by and/or and commas', () => {
    expect(last('roots $1$ and $2$ and $3$')?.text).toBe('1, 2, 3');
    expect(last('$21,16$ or $11$')?.text).toBe('21,16, 11');
  });

  it('reads signs, mixed numbers, ellipses and scientific notation in prose numbers', () => {
    expect(last('so x = −5.')).toMatchObject({ text: '−5', rule: 'number' });
    expect(last('The answer is 2 1/2.')).toMatchObject({ text: '2 1/2' });
    expect(last('the answer is 0.333...')).toMatchObject({ text: '0.333...' });
    expect(last('The answer is 3.2e4.')).toMatchObject({ text: '3.2e4' });
    expect(last('about 3.2 × 10^4 km')).toMatchObject({ text: '3.2*10^4' });
    expect(last('about 3.2 x 10^-4 m')).toMatchObject({ text: '3.2*10^-4' });
  });

  it('does not read a digit glued into a word as a number', () => {
    expect(last('AZYUK2A')).toBeNull();
    expect(last('it costs 1,000.99€')).toMatchObject({ text: '1,000.99', rule: 'number', plain: true });
  });

  it('finds display math across lines but inline math only on one line', () => {
    expect(findMathSpans('a $$\n9\n$$ b').map((s) => s.content)).toEqual(['\n9\n']);
    expect(findMathSpans('a $ \n 9 \n $ b')).toEqual([]);
    expect(findMathSpans('cost \\$5 and $x$').map((s) => s.content)).toEqual(['x']);
  });

  it('takes a short bare expression whole, with its last number as the fallback', () => {
    const r = last('W(x)=1orW(x)=-1');
    expect(r).toMatchObject({ text: 'W(x)=1orW(x)=-1', rule: 'whole', fallback: { text: '-1', rule: 'number' } });
    expect(last("not it's not 10 it's 1,000.99m²")).toMatchObject({ rule: 'number', text: '1,000.99' });
  });
});

describe('math extraction: gold', () => {
  it('reads a gold with or without delimiters and boxes', () => {
    expect(extractGold('$\\frac{7}{4}$')).toMatchObject({ text: '\\frac{7}{4}', rule: 'math' });
    expect(extractGold('10/9')).toMatchObject({ text: '10/9', rule: 'whole', plain: true });
    expect(extractGold('1,22')).toMatchObject({ plain: true });
    expect(extractGold('x \\in \\boxed{\\{-1\\} \\cup [0,7)}.$')?.text).toBe('\\{-1\\} \\cup [0,7)');
    expect(extractGold('$125$ miles')?.text).toBe('125');
    expect(extractGold('   ')).toBeNull();
  });

  it('reads a GSM8K gold after ####, and a gold sentence like a response', () => {
    expect(extractGold('She has 3 + 4 = 7 apples.\n#### 7')).toMatchObject({ text: '7', rule: 'whole' });
    expect(extractGold('The answer is 72')).toMatchObject({ text: '72', rule: 'number' });
    expect(extractGold('x = 2 or x = 3')).toMatchObject({ text: 'x = 2 or x = 3', rule: 'whole' });
    expect(extractGold('all real numbers')).toMatchObject({ rule: 'whole' });
    expect(extractGold('\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}')).toMatchObject({ rule: 'whole' });
    expect(extractGold('72 dollars')).toMatchObject({ text: '72 dollars', rule: 'whole' });
    expect(extractGold('10 cm and 5 cm')).toMatchObject({ rule: 'whole' });
    expect(extractGold('She has 7 apples left.')).toMatchObject({ text: '7', rule: 'number' });
  });
});
