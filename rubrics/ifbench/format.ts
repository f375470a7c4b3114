import { z } from 'zod';
import { defineConstraint, fail, kw, NO_KWARGS, PASS, plural, verdict } from '../constraint';
import { firstChar } from '../text/chars';
import { sentTokenize } from '../text/punkt';
import { isSpace, PUNCT_AND_SPACE, PUNCTUATION, pyIsAlpha, pyIsLower, pyIsUpper, pyLstrip, pySplit, pyStrip, removePunctuation } from '../text/py';
import { findWordToken } from '../text/words';

// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;

export const parentheses = defineConstraint({
  id: 'format:parentheses',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    // The open brackets as UTF-16 units; each closing one's opener is the unit one or two before.
    let stack: number[] = [];
    let maxDepth = 0;
    // Brackets are ASCII: scanning UTF-16 units finds the same ones as scanning code points.
    for (let i = 0, length = response.length; i < length; i++) {
      const code = charCodeAt.call(response, i);
      if (code === 0x28 || code === 0x5b || code === 0x7b) {
        stack.push(code);
        maxDepth = Math.max(maxDepth, stack.length);
      } else if (code === 0x29 || code === 0x5d || code === 0x7d) {
        if (stack.length > 0 && stack[stack.length - 1] === (code === 0x29 ? 0x28 : code - 2)) {
          stack.pop();
          if (maxDepth >= 5 && stack.length < maxDepth) return PASS;
        } else {
          stack = [];
          maxDepth = 0;
        }
      }
    }
    return fail('no correctly closed brackets nested 5 levels deep');
  },
  examples: [
    { response: 'a (b [c {d (e [f] e) d} c] b) a', pass: true },
    { response: 'a (b [c] b) a', pass: false },
  ],
});

export const quotes = defineConstraint({
  id: 'format:quotes',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    // The open quotes as UTF-16 units: only '"' and "'" are pushed, so only they can close.
    const stack: number[] = [];
    let reached = 0;
    for (let i = 0, length = response.length; i < length; i++) {
      const code = charCodeAt.call(response, i);
      if (code !== 0x22 && code !== 0x27) continue;
      if (stack.length > 0 && code === stack[stack.length - 1]) {
        stack.pop();
        if (reached - stack.length >= 3) return PASS;
      } else {
        stack.push(code);
        reached = Math.max(reached, stack.length);
      }
    }
    return fail('no quotes nested 3 levels deep, alternating " and \'');
  },
  examples: [
    { response: `He said "she said 'they said "go" now' then" done`, pass: true },
    { response: `He said "she said 'hi' then" done`, pass: false },
  ],
});

function optionsOf(options: string): { strict: boolean; list: string[] } {
  // Letter options (a), b), c)) must be answered exactly; word options loosely.
  const strict = /^[^\p{L}\p{N}_]*[aA][^\p{L}\p{N}_]*[bB][^\p{L}\p{N}_]*[cC]/u.test(options);
  const separator = options.includes('/') ? '/' : options.includes('or') ? 'or' : ',';
  return { strict, list: options.split(separator).map((o) => pyStrip(o)) };
}

export const options = defineConstraint({
  id: 'format:options',
  source: 'ifbench',
  kwargs: z.strictObject({ options: kw.str() }),
  check(response, { options: text }) {
    const { strict, list } = optionsOf(text);
    const ok = strict
      ? list.includes(response)
      : list.some((o) => pyStrip(o, PUNCT_AND_SPACE).toLowerCase() === pyStrip(response, PUNCT_AND_SPACE).toLowerCase());
    return verdict(ok, `the response is not exactly one of the options: ${text}`);
  },
  examples: [
    { response: 'Yes.', kwargs: { options: 'yes/no/maybe' }, pass: true },
    { response: 'Yes, because it is.', kwargs: { options: 'yes/no/maybe' }, pass: false },
  ],
});

export const newline = defineConstraint({
  id: 'format:newline',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const text = removePunctuation(response);
    const lines = pyStrip(text)
      .split('\n')
      .filter((l) => l !== '');
    const words = pySplit(pyStrip(text)).length;
    return verdict(lines.length === words, `found ${plural(words, 'word')} on ${plural(lines.length, 'line')}, expected one word per line`);
  },
  examples: [
    { response: 'One\nword\nper\nline.', pass: true },
    { response: 'Two words\nhere', pass: false },
  ],
});

function indentation(line: string): number {
  return line.length - pyLstrip(line, ' ').length;
}

/**
 * The reference removes blank lines from the list it is iterating (`for line in lines:
 * lines.remove(line)`): the line right after a removal is skipped (so a blank one survives), and
 * `remove` takes the first equal line still in the list, which may be an earlier survivor. Replayed
 * in one pass (splicing as the reference does is quadratic on a long response): removals only ever
 * hit lines at or before the current one, so a queue per blank value of the survivors seen so far
 * says which line goes.
 */
export function withoutBlankLinesAsReference(lines: readonly string[]): string[] {
  const removed = new Uint8Array(lines.length);
  const survivors = new Map<string, { at: number[]; head: number }>();
  const seen = (i: number): { at: number[]; head: number } => {
    const line = lines[i] as string;
    let queue = survivors.get(line);
    if (!queue) survivors.set(line, (queue = { at: [], head: 0 }));
    queue.at.push(i);
    return queue;
  };
  for (let i = 0, length = lines.length; i < length; i++) {
    if (pyStrip(lines[i] as string) !== '') continue;
    const queue = seen(i);
    removed[queue.at[queue.head++] as number] = 1;
    // The next line moved into the current slot: the loop never looks at it.
    if (i + 1 < lines.length && pyStrip(lines[i + 1] as string) === '') seen(i + 1);
    i++;
  }
  return lines.filter((_, i) => removed[i] === 0);
}

export const lineIndent = defineConstraint({
  id: 'format:line_indent',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const lines = withoutBlankLinesAsReference(response.split('\n'));
    for (let i = 0; i + 1 < lines.length; i++) {
      if (indentation(lines[i + 1] as string) <= indentation(lines[i] as string)) {
        return fail(`line ${i + 2} is not indented further than line ${i + 1}`);
      }
    }
    return PASS;
  },
  examples: [
    { response: 'a\n b\n  c', pass: true },
    { response: 'a\n\n\n b\n  c', pass: false },
  ],
});

export const quoteUnquote = defineConstraint({
  id: 'format:quote_unquote',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const text = pySplit(response.replace(/'"'/g, '')).join('');
    if (text.includes('""')) return fail('a quotation directly follows another without an explanation');
    const stripped = pyStrip(text, '0123456789' + PUNCTUATION.replace('"', ''));
    return verdict(!(stripped !== '' && stripped.endsWith('"')), 'the response ends with a quotation and no explanation after it');
  },
  examples: [
    { response: '"To be" means to exist.', pass: true },
    { response: 'He said "to be".', pass: false },
  ],
});

export const list = defineConstraint({
  id: 'format:list',
  source: 'ifbench',
  kwargs: z.strictObject({ sep: kw.nonEmptyStr() }),
  check(response, { sep }) {
    const n = response.split(sep).length - 1;
    return verdict(n >= 2, `found ${plural(n, `"${sep}" marker`)}, expected at least 2`);
  },
  examples: [
    { response: 'SEPARATOR apples\nSEPARATOR pears', kwargs: { sep: 'SEPARATOR' }, pass: true },
    { response: '* apples\n* pears', kwargs: { sep: 'SEPARATOR' }, pass: false },
  ],
});

export const thesis = defineConstraint({
  id: 'format:thesis',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    let index = response.indexOf('<i>');
    if (index === -1) index = response.indexOf('<em>');
    if (index === -1) return fail('no thesis in <i> or <em> italics');
    const text = response.slice(index);
    let end = text.indexOf('</i>');
    if (end === -1) end = text.indexOf('</em>');
    if (end === -1) return fail('the italic thesis is never closed');
    // The reference slices as if both tags were <i>…</i>, and so does this.
    if (pyStrip(text.slice(3, end)) === '') return fail('the italic thesis is empty');
    return verdict(pyStrip(text.slice(end + 4)) !== '', 'nothing follows the italic thesis');
  },
  examples: [
    { response: '<i>Cats rule.</i>\nThey nap all day.', pass: true },
    { response: 'Cats rule. They nap all day.', pass: false },
  ],
});

export const subBullets = defineConstraint({
  id: 'format:sub-bullets',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const bullets = response.split('*');
    for (const [i, bullet] of bullets.slice(1).entries()) {
      if (!bullet.includes('-')) return fail(`bullet ${i + 1} has no "-" sub-bullet`);
    }
    return PASS;
  },
  examples: [
    { response: '* Fruit\n  - apple\n* Veg\n  - kale', pass: true },
    { response: '* Fruit\n* Veg\n  - kale', pass: false },
  ],
});

export const noBulletsBullets = defineConstraint({
  id: 'format:no_bullets_bullets',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    // The reference reuses its "still in the prose" flag for the sentences of the last line, so a
    // blank line ends the prose part; that is reproduced.
    let inProse = true;
    let sentences = 0;
    let bullets = 0;
    for (const line of response.split('\n')) {
      if (pyStrip(line).startsWith('*')) {
        inProse = false;
        if (sentences < 2) return fail(`found ${plural(sentences, 'sentence')} before the bullet points, expected at least 2`);
        bullets++;
      } else if (inProse) {
        const found = sentTokenize(pyStrip(line));
        sentences += found.length;
        inProse = found.length > 0;
      } else return fail('text other than bullet points follows the bullet points (or a blank line)');
    }
    return verdict(bullets >= 2, `found ${plural(bullets, 'bullet point')}, expected at least 2`);
  },
  examples: [
    { response: 'First sentence. Second sentence.\n* one\n* two', pass: true },
    { response: 'Only one sentence.\n* one\n* two', pass: false },
  ],
});

/**
 * The reference's test of one token: a token whose first character is a letter fails when that
 * letter is lowercase and the token is that letter alone, or the rest is all one case. By code
 * point, as Python indexes; an ASCII first letter is decided without the Unicode tests (an
 * uppercase one never fails), since every token is tested.
 */
function notCapitalized(word: string): boolean {
  const code = charCodeAt.call(word, 0);
  if (code < 0x80) {
    if (code >= 0x41 && code <= 0x5a) return false;
    if (!(code >= 0x61 && code <= 0x7a)) return false;
    return word.length === 1 || isOneCase(word.slice(1));
  }
  const head = firstChar(word);
  if (head === '' || !pyIsAlpha(head)) return false;
  if (word.length === head.length) return pyIsLower(head);
  const tail = word.slice(head.length);
  if (pyIsUpper(head) && pyIsLower(tail)) return false;
  return pyIsLower(head) && isOneCase(tail);
}

const isOneCase = (s: string): boolean => pyIsUpper(s) || pyIsLower(s);

export const titleCase = defineConstraint({
  id: 'format:title_case',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    // Token by token: most responses fail at an early word, and the rest is not tokenized.
    const word = findWordToken(response, notCapitalized);
    return word === undefined ? PASS : fail(`"${word}" is not capitalized`);
  },
  examples: [
    { response: 'The Quick Brown Fox Jumps Over The Lazy Dog', pass: true },
    { response: 'The quick Brown Fox', pass: false },
  ],
});

export const outputTemplate = defineConstraint({
  id: 'format:output_template',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const missing = ['My Answer:', 'My Conclusion:', 'Future Outlook:'].filter((h) => !response.includes(h));
    return verdict(missing.length === 0, `missing ${missing.map((h) => `"${h}"`).join(', ')}`);
  },
  examples: [
    { response: 'My Answer: yes My Conclusion: good Future Outlook: bright', pass: true },
    { response: 'My Answer: yes', pass: false },
  ],
});

export const noWhitespace = defineConstraint({
  id: 'format:no_whitespace',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    return verdict(!Array.from(response).some(isSpace), 'the response contains whitespace');
  },
  examples: [
    { response: 'NoSpacesAtAll.', pass: true },
    { response: 'Has a space', pass: false },
  ],
});

export const FORMAT_CONSTRAINTS = [
  parentheses,
  quotes,
  options,
  newline,
  lineIndent,
  quoteUnquote,
  list,
  thesis,
  subBullets,
  noBulletsBullets,
  titleCase,
  outputTemplate,
  noWhitespace,
];
