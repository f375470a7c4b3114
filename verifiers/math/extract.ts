import { balancedGroup, isEmptyBox } from '../../core/text';

/**
 * Extraction: which part of a response is its answer. `boxed` takes only `\boxed{}`/`\fbox{}`;
 * `boxed_then_last` falls back, in order, to a "final answer is …" statement, an "Answer: …" line,
 * and then to whichever comes last of the last math span (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`) and the
 * last bare number in the prose.
 */
export type ExtractMode = 'boxed' | 'boxed_then_last';

export type ExtractRule = 'boxed' | 'final_answer' | 'answer_anchor' | 'math' | 'number' | 'whole';

export interface Extracted {
  text: string;
  rule: ExtractRule;
  /** Taken from prose, not LaTeX: a comma between digits may then be a decimal comma (`2,74`). */
  plain: boolean;
  /** What to use instead when `text` does not parse (a short text taken whole, else its last number). */
  fallback?: Extracted;
}

interface Span {
  start: number;
  end: number;
  content: string;
}

// Gaps between boxes that still belong to one answer: `\boxed{1}, \boxed{2}`, `\boxed{1} and \boxed{2}`.
const NEAR_GAP = 10;
const FAR_GAP = 70;
const CONNECTIVE = /\band\b|\bor\b|,|;/i;
/** Words between two boxes that replace the first by the second instead of listing both. */
const CORRECTION = /\b(?:wrong|incorrect|but|actually|instead|mistake|re-?check\w*|correct(?:ed|ion|ly)?|wait|however|not)\b/i;
const PERCENT_AFTER = /^\s*(?:\$|\\\)|\\\])?\s*(?:\\?%|percent(?:age)?\b|pct\b)/i;
// `(?:\s*:)?\s*` reads as `\s*:?\s*` did, in the same order, without trying each split of a run of
// spaces between two `\s*` (with the 400 lengths after each, "final answer is" and 4,000 newlines
// took 6 s).
const MINERVA = /final answer is(?:\s*:)?\s*([\s\S]{1,400}?)\.?\s?I hope/gi;
const FINAL_ANSWER_IS = /final answer[^\n]{0,100}?\s+is\s*:?\s*/gi;
const ANSWER_ANCHOR = /\banswer\s*(?:is\s*)?[:：]\s*/gi;
const BOX_MACRO = /\\(?:boxed|fbox)\s*\{/g;
/**
 * A number in prose: a sign (also `−`), a mixed number (`2 1/2`), thousands separators, a decimal
 * (comma) part, a repeating decimal's ellipsis (`0.333...`), scientific notation (`3.2e4`,
 * `3.2 × 10^4`, `3.2 x 10^-4`), a fraction bar, a percent.
 */
const BARE_NUMBER =
  /(?<![\w.\\-])[-−]?(?:\d+ \d+\s*\/\s*\d+(?!\d|\.\d)|(?:[1-9]\d{0,2}(?:[ ,]\d{3})+(?!\d)|\d+)(?:[.,]\d+)?(?:\.{3}|…)?(?:[eE][-+]?\d+(?!\w|\.\d)|\s*(?:×|\\times|\\cdot|x|\*)\s*10\s*\^\s*\{?[-−+]?\d+\}?)?(?:\s*\/\s*\d+(?:\.\d+)?)?(?:\s*(?:%|percent(?:age)?\b|pct\b))?)|(?<![\w.\\])\.\d+/g;
/**
 * The times sign of `3.2 x 10^4`, with the spaces around it. Tried only where a run of spaces starts
 * (a number can hold a long one, `1      /2`), not from each of its characters.
 */
const TIMES_TEN = /(?<!\s)\s*(?:x|×)\s*(?=10\s*\^)/;
/** Whatever separates math spans that together state one answer: `$1$ and $2$`, `$21,16$ or $11$`. */
const SPAN_JOIN = /^\s*(?:[,;]\s*)?(?:(?:and|or)\s*)?(?:[,;]\s*)?$/i;

/** All top-level boxes, left to right; an unclosed last box runs to the end of the text. */
export function findBoxes(text: string): Span[] {
  const boxes: Span[] = [];
  BOX_MACRO.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = BOX_MACRO.exec(text)) !== null) {
    const open = m.index + m[0].length - 1;
    const content = balancedGroup(text, open);
    if (content === null) {
      boxes.push({ start: m.index, end: text.length, content: text.slice(open + 1) });
      break;
    }
    const end = open + content.length + 2;
    boxes.push({ start: m.index, end, content: content.trim() });
    BOX_MACRO.lastIndex = end;
  }
  return boxes;
}

/**
 * The last box, joined with the boxes just before it when they list one answer: separated by a
 * few characters, or by a short gap with a connective ("and", ",", ";") and different content.
 */
export function trailingBoxes(text: string, boxes: Span[]): Span | null {
  const last = boxes[boxes.length - 1];
  if (!last) return null;
  const run: Span[] = [last];
  for (let i = boxes.length - 2; i >= 0; i--) {
    const box = boxes[i] as Span;
    const next = run[0] as Span;
    const gap = text.slice(box.end, next.start);
    const joinable = !CORRECTION.test(gap) && (gap.length < NEAR_GAP || (gap.length < FAR_GAP && CONNECTIVE.test(gap) && box.content !== next.content));
    if (!joinable) break;
    if (box.content !== next.content) run.unshift(box);
  }
  let content = run.map((b) => b.content).join(', ');
  if (PERCENT_AFTER.test(text.slice(last.end, last.end + 16))) content += '\\%';
  return { start: (run[0] as Span).start, end: last.end, content };
}

/** Math spans left to right. Inline `$…$` and `\(…\)` stay on one line, display math may span lines. */
export function findMathSpans(text: string): Span[] {
  const spans: Span[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const ch = text[i];
    if (ch === '\\' && (text[i + 1] === '[' || text[i + 1] === '(')) {
      const close = text[i + 1] === '[' ? '\\]' : '\\)';
      const end = text.indexOf(close, i + 2);
      const inline = close === '\\)';
      if (end >= 0 && !(inline && text.slice(i + 2, end).includes('\n'))) {
        spans.push({ start: i, end: end + 2, content: text.slice(i + 2, end) });
        i = end + 2;
        continue;
      }
      i += 2;
      continue;
    }
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (ch === '$') {
      const display = text[i + 1] === '$';
      const from = i + (display ? 2 : 1);
      const end = findDollar(text, from, display);
      if (end >= 0) {
        spans.push({ start: i, end: end + (display ? 2 : 1), content: text.slice(from, end) });
        i = end + (display ? 2 : 1);
        continue;
      }
      i = from;
      continue;
    }
    i++;
  }
  return spans;
}

function findDollar(text: string, from: number, display: boolean): number {
  for (let j = from; j < text.length; j++) {
    const ch = text[j];
    if (ch === '\\') {
      j++;
      continue;
    }
    if (!display && ch === '\n') return -1;
    if (ch === '$') {
      if (!display) return j;
      if (text[j + 1] === '$') return j;
    }
  }
  return -1;
}

/** Groups of adjacent spans joined by connectives, each as one span whose content lists them. */
function joinSpans(text: string, spans: Span[]): Span[] {
  const groups: Span[] = [];
  for (const span of spans) {
    const prev = groups[groups.length - 1];
    let content = span.content;
    if (PERCENT_AFTER.test(text.slice(span.end, span.end + 16))) content += '\\%';
    if (prev && SPAN_JOIN.test(text.slice(prev.end, span.start))) {
      groups[groups.length - 1] = { start: prev.start, end: span.end, content: `${prev.content}, ${content}` };
    } else groups.push({ start: span.start, end: span.end, content });
  }
  return groups;
}

function lastNumber(text: string, outside: Span[]): Span | null {
  let last: Span | null = null;
  BARE_NUMBER.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = BARE_NUMBER.exec(text)) !== null) {
    const start = m.index;
    if (outside.some((s) => start >= s.start && start < s.end)) continue;
    // `3.2 x 10^4`: the letter x is a times sign here, not a variable.
    last = { start, end: start + m[0].length, content: m[0].replace(TIMES_TEN, '*') };
  }
  return last;
}

function firstNumber(text: string): string | null {
  BARE_NUMBER.lastIndex = 0;
  const m = BARE_NUMBER.exec(text);
  return m ? m[0] : null;
}

/** The answer stated in one sentence after an anchor: its first math span group, else its first number. */
function fromStatement(statement: string, rule: ExtractRule): Extracted | null {
  const boxes = findBoxes(statement);
  const boxed = trailingBoxes(statement, boxes);
  if (boxed) return { text: boxed.content, rule, plain: false };
  const groups = joinSpans(statement, findMathSpans(statement));
  const first = groups[0];
  if (first && first.content.trim() !== '') return { text: first.content, rule, plain: false };
  const number = firstNumber(statement);
  return number ? { text: number, rule, plain: true } : null;
}

function sentenceAfter(text: string, from: number): string {
  const rest = text.slice(from, from + 300);
  const stop = rest.search(/\n|\.\s|\.$|I hope/);
  return stop >= 0 ? rest.slice(0, stop) : rest;
}

function lastMatchEnd(pattern: RegExp, text: string): { index: number; end: number; group?: string } | null {
  pattern.lastIndex = 0;
  let last: { index: number; end: number; group?: string } | null = null;
  let m: RegExpExecArray | null;
  while ((m = pattern.exec(text)) !== null) {
    last = m[1] !== undefined ? { index: m.index, end: m.index + m[0].length, group: m[1] } : { index: m.index, end: m.index + m[0].length };
    if (m[0].length === 0) pattern.lastIndex++;
  }
  return last;
}

/** The answer of a (final) response text, or null when it states none. */
export function extractAnswer(text: string, mode: ExtractMode): Extracted | null {
  const boxes = findBoxes(text);
  const boxed = trailingBoxes(text, boxes);
  const finalBox = boxes[boxes.length - 1];
  // An empty final box states that there is no answer: no number or statement elsewhere in the text
  // stands in for it.
  if (finalBox && isEmptyBox(finalBox.content)) return null;
  if (mode === 'boxed') return boxed && boxed.content.trim() !== '' ? { text: boxed.content, rule: 'boxed', plain: false } : null;

  // "The final answer is X. I hope it is correct." (the Minerva template) outranks an earlier box.
  const minerva = lastMatchEnd(MINERVA, text);
  if (minerva && (!boxed || minerva.end > boxed.end)) {
    const stated = fromStatement(minerva.group ?? '', 'final_answer');
    if (stated) return stated;
  }
  if (boxed && boxed.content.trim() !== '') return { text: boxed.content, rule: 'boxed', plain: false };

  for (const [pattern, rule] of [[FINAL_ANSWER_IS, 'final_answer'], [ANSWER_ANCHOR, 'answer_anchor']] as const) {
    const anchor = lastMatchEnd(pattern, text);
    if (anchor) {
      const stated = fromStatement(sentenceAfter(text, anchor.end), rule);
      if (stated) return stated;
    }
  }

  const spans = findMathSpans(text);
  const groups = joinSpans(text, spans).filter((g) => g.content.trim() !== '');
  const lastMath = groups[groups.length - 1];
  const number = lastNumber(text, spans);
  const byNumber: Extracted | null = number ? { text: number.content, rule: 'number', plain: true } : null;
  if (lastMath && (!number || lastMath.end > number.end)) return { text: lastMath.content, rule: 'math', plain: false };
  // A short reply that is nothing but an expression (`\frac{10}{9}`, `W(x)=1orW(x)=-1`) is its own answer.
  if (spans.length === 0 && isBareExpression(text)) {
    const whole: Extracted = { text: text.trim(), rule: 'whole', plain: !text.includes('\\') };
    if (byNumber) whole.fallback = byNumber;
    return whole;
  }
  return byNumber;
}

const BARE_EXPRESSION_CHARS = 100;

const PROSE_WORD = /(?<![\\a-zA-Z])(?!(?:sin|cos|tan|log|ln|exp|sqrt|pi)\b)[a-zA-Z]{4,}|(?:^|\s)(?!(?:sin|cos|tan|log|ln|exp|sqrt|pi)\b)[a-zA-Z]{2,}(?=[\s'’]|$)/;

/** Short, and without words of prose (`not`, `it's`, `Soucis`): an expression, not a sentence. */
function isBareExpression(text: string): boolean {
  const t = text.trim();
  return t !== '' && t.length <= BARE_EXPRESSION_CHARS && !PROSE_WORD.test(t);
}

/**
 * The gold answer: written as LaTeX or plain text, with or without `$…$` and `\boxed`. A gold that
 * is a whole solution is read like a response; a bare gold is taken whole.
 */
export function extractGold(gold: string): Extracted | null {
  let text = gold.trim();
  if (text === '') return null;
  // GSM8K writes its final answer after `####`.
  const hashes = text.lastIndexOf('####');
  if (hashes >= 0 && text.slice(hashes + 4).trim() !== '') text = text.slice(hashes + 4).trim();
  const boxed = trailingBoxes(text, findBoxes(text));
  const minerva = lastMatchEnd(MINERVA, text);
  if (minerva && (!boxed || minerva.end > boxed.end)) {
    const stated = fromStatement(minerva.group ?? '', 'final_answer');
    if (stated) return stated;
  }
  if (boxed && boxed.content.trim() !== '') return { text: boxed.content, rule: 'boxed', plain: false };
  const groups = joinSpans(text, findMathSpans(text)).filter((g) => g.content.trim() !== '');
  const lastMath = groups[groups.length - 1];
  if (lastMath) return { text: lastMath.content, rule: 'math', plain: false };
  // A gold written as a sentence ("The answer is 72") is read like a response.
  if (isProse(text)) {
    const stated = extractAnswer(text, 'boxed_then_last');
    if (stated && stated.rule !== 'whole') return stated;
  }
  return { text, rule: 'whole', plain: !/[\\$]/.test(text) };
}

/**
 * A sentence rather than an answer: it has a function word of English prose. Answers made of words
 * ("all real numbers", "10 cm and 5 cm", "Devon") have none.
 */
const SENTENCE_WORD = /(?<![\\a-zA-Z])(?:the|is|are|was|were|answer|so|thus|therefore|hence|we|she|he|they|it|there|has|have|of|to|total)(?![a-zA-Z])/i;

function isProse(text: string): boolean {
  return SENTENCE_WORD.test(text.replace(/\\(?:text|mathrm|textbf|mbox)\s*\{[^}]*\}/g, ' '));
}
