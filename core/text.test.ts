import { balancedGroup, finalText, isEmptyBox, lastBoxed } from './text';

describe('finalText', () => {
  it('grades the text after the last </think>', () => {
    expect(finalText('<think>a</think> b <think>c</think> final')).toBe(' final');
  });

  it('has no final answer when a <think> never closes, and is the whole response without one', () => {
    expect(finalText('<think>still thinking \\boxed{3}')).toBeNull();
    expect(finalText('just \\boxed{3}')).toBe('just \\boxed{3}');
  });
});

describe('lastBoxed', () => {
  it('takes the content of the last top-level box, \\boxed or \\fbox, with balanced braces', () => {
    expect(lastBoxed('first \\boxed{1}, then \\boxed{\\frac{1}{2}}')).toBe('\\frac{1}{2}');
    expect(lastBoxed('\\fbox {x+y}')).toBe('x+y');
  });

  it('keeps boxes nested in a box as part of it, and unwraps a box that only wraps another', () => {
    expect(lastBoxed('\\boxed{a \\boxed{b}}')).toBe('a \\boxed{b}');
    expect(lastBoxed('\\boxed{ \\boxed{\\boxed{3}} }')).toBe('3');
  });

  it('skips a box that never closes and reads an escaped brace as text', () => {
    expect(lastBoxed('\\boxed{2} and \\boxed{3')).toBe('2');
    expect(lastBoxed('\\boxed{\\{1, 2\\}}')).toBe('\\{1, 2\\}');
    expect(lastBoxed('no box here')).toBeNull();
  });

  it('answers the same past the length where braces are paired in one pass', () => {
    const long = 'x'.repeat(5000);
    expect(lastBoxed(`\\boxed{${long}} \\boxed{{${long}}} \\boxed{7`)).toBe(`{${long}}`);
    expect(lastBoxed(`${'\\boxed{'.repeat(3000)}5`)).toBeNull();
  });
});

describe('isEmptyBox', () => {
  it('is true for spaces, LaTeX spacing, empty braces, empty \\text{} and dollars', () => {
    for (const content of ['', '  ', '\\,\\;\\quad', '{}', '\\text{ }', '$ $', '\\mathrm{}\\qquad']) expect(isEmptyBox(content)).toBe(true);
  });

  it('is false for anything that states an answer', () => {
    for (const content of ['0', '\\text{no}', 'x', '\\emptyset']) expect(isEmptyBox(content)).toBe(false);
  });
});

describe('balancedGroup', () => {
  it('is the content between a brace and its match, or null when unbalanced', () => {
    const text = 'f{a{b}c}d';
    expect(balancedGroup(text, 1)).toBe('a{b}c');
    expect(balancedGroup(text, 3)).toBe('b');
    expect(balancedGroup('f{a{b', 1)).toBeNull();
  });
});
