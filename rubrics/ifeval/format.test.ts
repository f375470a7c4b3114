import { checkWith, passes } from '../../test/pure/constraint';
import { PY_SPACE, pyStrip } from '../text/py';
import { jsonFormat, multipleSections, numberBulletLists, numberHighlightedSections, numberPlaceholders, postscript, title } from './format';

/**
 * Several checkers here scan by hand what the reference finds with a regex that is quadratic on
 * hostile text. Each is held to that regex, translated literally (Python's `.` is `[^\n]`, `\s` is
 * PY_SPACE, MULTILINE `^` is "at the start or after \n"), on every short text over the characters
 * that matter, drawn by a seeded generator.
 */
function texts(alphabet: readonly string[], count: number, maxLength: number, seed: number): string[] {
  let s = seed;
  const next = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s >>> 8;
  };
  return Array.from({ length: count }, () => Array.from({ length: next() % (maxLength + 1) }, () => alphabet[next() % alphabet.length]).join(''));
}

const count = (re: RegExp, text: string) => [...text.matchAll(re)].length;
const foundPlaceholders = (response: string) => Number(/^found (\d+)/.exec(checkWith(numberPlaceholders, response, { num_placeholders: 1e9 }).reason)?.[1]);
const foundBullets = (response: string) => Number(/^found (\d+)/.exec(checkWith(numberBulletLists, response, { num_bullets: 1e9 }).reason)?.[1]);

describe('IFEval format constraints, held to the reference regexes', () => {
  it('number_placeholders counts what re.findall(r"\\[.*?\\]") finds', () => {
    const reference = /\[[^\n]*?\]/g;
    for (const t of ['[a] [b]', '[a\n] [b]', '[[x]]', '] [', '[a][b][c]', ...texts(['[', ']', '\n', 'a'], 2000, 12, 7)]) {
      expect([t, foundPlaceholders(t)]).toEqual([t, count(reference, t)]);
    }
  });

  it('number_bullet_lists counts what ^\\s*\\*[^\\*].*$ and ^\\s*-.*$ (MULTILINE) find', () => {
    const star = new RegExp(`(?<![^\\n])[${PY_SPACE}]*\\*[^*][^\\n]*`, 'gu');
    const dash = new RegExp(`(?<![^\\n])[${PY_SPACE}]*-[^\\n]*`, 'gu');
    const samples = ['* a\n* b\n- c', '**bold**\n* item', '\n\n  * a', '*\nfoo', ' -', '1. a\n2. b', ...texts(['*', '-', ' ', '\n', 'a', '\t'], 3000, 10, 11)];
    for (const t of samples) expect([t, foundBullets(t)]).toEqual([t, count(star, t) + count(dash, t)]);
    expect(passes(numberBulletLists, '* one\n* two\n- three', { num_bullets: 3 })).toBe(true);
    expect(checkWith(numberBulletLists, '* one\n**not a bullet**', { num_bullets: 2 }).reason).toBe('found 1 bullet point, expected exactly 2');
  });

  it('title finds what re.findall(r"<<[^\\n]+>>") finds with a non-blank title inside', () => {
    const reference = (t: string) => [...t.matchAll(/<<[^\n]+>>/g)].some(([m]) => pyStrip(m.replace(/^<+/, '').replace(/>+$/, '')) !== '');
    for (const t of ['<<Title>>', '<< >>', '<<>>', '<<<a>>', '<<a>> <<>>', '<<\n>>', '<< x', ...texts(['<', '>', ' ', '\n', 'a'], 3000, 10, 13)]) {
      expect([t, passes(title, t)]).toEqual([t, reference(t)]);
    }
  });

  it('json_format parses as Python json.loads does: NaN and ±Infinity as values, nothing glued to them', () => {
    // Each verdict was taken from Python 3's json.loads.
    const python: Array<[string, boolean]> = [
      ['{"a": NaN}', true],
      ['{"a": -Infinity}', true],
      ['[NaN, Infinity, -Infinity]', true],
      ['NaN', true],
      ['{"NaN": 1}', true],
      ['{"a": "x\\" NaN"}', true],
      ['[1e5]', true],
      ['[-NaN]', false],
      ['[1NaN]', false],
      ['[--Infinity]', false],
      ['[2Infinity]', false],
      ['[0NaN]', false],
      ['[-Infinity2]', false],
      ['{NaN: 1}', false],
      ['[NaNa]', false],
      ['[NaN1]', false],
      ['[- Infinity]', false],
      ['["unclosed, NaN]', false],
      ['{"a":1} NaN', false],
    ];
    for (const [t, ok] of python) expect([t, passes(jsonFormat, t)]).toEqual([t, ok]);
  });

  it('json_format strips one code fence, as the reference removes its prefixes and suffix', () => {
    expect(passes(jsonFormat, '  ```JSON\n{"a": [1, 2]}\n```  ')).toBe(true);
    expect(passes(jsonFormat, '```\n[1]\n```')).toBe(true);
    expect(passes(jsonFormat, 'Here: ```json\n{}\n```')).toBe(false);
    expect(passes(jsonFormat, "{'a': 1}")).toBe(false);
  });

  it('postscript finds the marker anywhere, case-insensitively, with the reference spacing', () => {
    expect(passes(postscript, 'Body.\np. s. later', { postscript_marker: 'P.S.' })).toBe(true);
    expect(passes(postscript, 'Body.\nPS later', { postscript_marker: 'P.S.' })).toBe(false);
    expect(passes(postscript, 'Body. P.P.S more', { postscript_marker: 'P.P.S' })).toBe(true);
    expect(passes(postscript, 'Body.\nNote: more', { postscript_marker: 'Note:' })).toBe(true);
    expect(checkWith(postscript, 'Body.', { postscript_marker: ' Note: ' }).reason).toBe('no postscript starting with "Note:"');
  });

  it('number_highlighted_sections counts non-blank *single* and **double** highlights', () => {
    // Python counts 2 here: the single pattern's matches are *a*, "* *" and four "**" (only *a* is
    // not blank), the double one's **b** and "****".
    expect(checkWith(numberHighlightedSections, '*a* * * **b** ****', { num_highlights: 9 }).reason).toBe('found 2 highlighted sections, expected at least 9');
    expect(passes(numberHighlightedSections, '*a* *b* **c**', { num_highlights: 3 })).toBe(true);
    expect(passes(numberHighlightedSections, '*one\ntwo*', { num_highlights: 1 })).toBe(false);
  });

  it('multiple_sections counts "SPLITER N" marks, case-sensitively', () => {
    expect(passes(multipleSections, 'SECTION 1\nIntro\nSECTION 2\nBody', { section_spliter: ' SECTION ', num_sections: 2 })).toBe(true);
    expect(checkWith(multipleSections, 'Section 1\nIntro\nSECTION X', { section_spliter: 'SECTION', num_sections: 1 }).reason).toBe(
      'found 0 sections marked "SECTION N", expected at least 1',
    );
  });
});
