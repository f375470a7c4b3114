import { choiceLetter, stripLatex } from './normalize';

describe('stripLatex', () => {
  it('keeps the content of text wrappers and drops math delimiters and spacing', () => {
    expect(stripLatex('$\\text{Paris}$').trim()).toBe('Paris');
    expect(stripLatex('\\(\\mathbf{\\textit{x}}\\)').trim()).toBe('x');
    expect(stripLatex('a\\,b\\quad c')).toBe('a b  c');
  });

  it('drops colour and keeps what it colours, in each form models write it', () => {
    expect(stripLatex('\\textcolor{red}{C}')).toBe('C');
    expect(stripLatex('\\colorbox[rgb]{1,1,0}{C}')).toBe('C');
    expect(stripLatex('\\fcolorbox{red}{white}{C}')).toBe('C');
    expect(stripLatex('{\\color{blue} C}').trim()).toBe('C');
    expect(stripLatex('\\color{blue}C')).toBe('C');
  });
});

describe('choiceLetter', () => {
  it('reads the option letter in the ways answers write it', () => {
    for (const answer of ['C', '(C)', 'C.', 'C)', '[C]', '\\text{C}', 'C: sodium', '(C) sodium', 'Option C', '**C**', '(c)', 'c.']) {
      expect([answer, choiceLetter(answer)]).toEqual([answer, 'C']);
    }
  });

  it('does not read a sentence that starts with a capital, or a lone lower-case letter, as an option', () => {
    expect(choiceLetter('A cell divides')).toBeNull();
    expect(choiceLetter('c')).toBeNull();
    expect(choiceLetter('sodium')).toBeNull();
  });
});
