import { z } from 'zod';
import { defineConstraint, fail, kw, NO_KWARGS, PASS, plural, verdict } from '../constraint';
import { PY_SPACE, pyStrip } from '../text/py';
import { labelPattern, type LabelPattern } from '../text/label-pattern';

const SP = `[${PY_SPACE}]`;

/**
 * The matches of the reference's `re.findall(r"\[.*?\]", text)`: a `[` closed by the first `]` on its
 * line. Scanned once: the regex retries every `[` to the end of its line, quadratic on a long line
 * of unclosed brackets; a `[` whose line has no `]` after it means no `[` before that line end closes.
 */
function countBracketed(text: string): number {
  let n = 0;
  let i = text.indexOf('[');
  let lineEnd = -1;
  while (i >= 0) {
    const close = text.indexOf(']', i + 1);
    if (close < 0) break;
    // The end of the current line, found once per line (not once per bracket).
    if (lineEnd !== Infinity && lineEnd <= i) {
      lineEnd = text.indexOf('\n', i + 1);
      if (lineEnd < 0) lineEnd = Infinity;
    }
    if (lineEnd < close) {
      i = text.indexOf('[', lineEnd + 1);
      continue;
    }
    n++;
    i = text.indexOf('[', close + 1);
  }
  return n;
}

export const numberPlaceholders = defineConstraint({
  id: 'detectable_content:number_placeholders',
  source: 'ifeval',
  kwargs: z.strictObject({ num_placeholders: kw.count() }),
  check(response, { num_placeholders }) {
    const n = countBracketed(response);
    return verdict(n >= num_placeholders, `found ${plural(n, 'placeholder')} in [square brackets], expected at least ${num_placeholders}`);
  },
  examples: [
    { response: 'Send to [name] at [address].', kwargs: { num_placeholders: 2 }, pass: true },
    { response: 'Send to [name].', kwargs: { num_placeholders: 2 }, pass: false },
  ],
});

const P_P_S = new RegExp(`p\\.${SP}?p\\.${SP}?s`, 'u');
const P_S = new RegExp(`p\\.${SP}?s\\.`, 'u');

export const postscript = defineConstraint({
  id: 'detectable_content:postscript',
  source: 'ifeval',
  kwargs: z.strictObject({
    postscript_marker: kw
      .str()
      .transform((s) => s.trim())
      .superRefine((marker, ctx) => {
        const compiled = marker === 'P.S.' || marker === 'P.P.S' ? null : labelPattern(marker.toLowerCase());
        if (typeof compiled === 'string') ctx.addIssue({ code: 'custom', message: compiled });
      }),
  }),
  check(response, { postscript_marker }) {
    const text = response.toLowerCase();
    // Neither anchored to a line start nor to the end: "help.s. me" holds a "P.S.". The reference
    // searches for `\s*` + marker; optional leading spaces cannot decide whether it is found, and
    // searched for they made each start in a run of spaces scan the rest of it (quadratic).
    const re =
      postscript_marker === 'P.P.S'
        ? P_P_S
        : postscript_marker === 'P.S.'
          ? P_S
          : labelPattern(postscript_marker.toLowerCase());
    const found = typeof re === 'string' ? false : re.test(text); // a refused marker never reaches here
    return verdict(found, `no postscript starting with "${postscript_marker}"`);
  },
  examples: [
    { response: 'Body.\n\nP.S. Bring snacks.', kwargs: { postscript_marker: 'P.S.' }, pass: true },
    { response: 'Body.\n\nP.P.S. Bring snacks.', kwargs: { postscript_marker: 'P.P.S' }, pass: true },
    { response: 'Body only.', kwargs: { postscript_marker: 'P.S.' }, pass: false },
  ],
});

// The reference's `^\s*\*[^\*].*$` and `^\s*-.*$` (MULTILINE), found from the bullet back: tried from
// every line start, `\s*` spans newlines, so each line of a run of blank lines scanned the rest of
// the run (quadratic). A match consumes the same text from the bullet on, so the count is the same.
// The look back comes after the bullet character, so it runs only where one is.
const STAR_BULLET = new RegExp(`\\*(?<=(?:^|\\n)${SP}*\\*)[^*][^\\n]*`, 'gu');
const DASH_BULLET = new RegExp(`-(?<=(?:^|\\n)${SP}*-)[^\\n]*`, 'gu');

export const numberBulletLists = defineConstraint({
  id: 'detectable_format:number_bullet_lists',
  source: 'ifeval',
  kwargs: z.strictObject({ num_bullets: kw.count() }),
  check(response, { num_bullets }) {
    const n = (response.match(STAR_BULLET)?.length ?? 0) + (response.match(DASH_BULLET)?.length ?? 0);
    return verdict(n === num_bullets, `found ${plural(n, 'bullet point')}, expected exactly ${num_bullets}`);
  },
  examples: [
    { response: '* one\n* two\n- three', kwargs: { num_bullets: 3 }, pass: true },
    { response: '* one\n1. two', kwargs: { num_bullets: 2 }, pass: false },
  ],
});

const CONSTRAINED_OPTIONS = ['My answer is yes.', 'My answer is no.', 'My answer is maybe.'];

export const constrainedResponse = defineConstraint({
  id: 'detectable_format:constrained_response',
  source: 'ifeval',
  kwargs: NO_KWARGS,
  check(response) {
    const text = pyStrip(response);
    return verdict(
      CONSTRAINED_OPTIONS.some((o) => text.includes(o)),
      'contains none of "My answer is yes.", "My answer is no.", "My answer is maybe."',
    );
  },
  examples: [
    { response: 'My answer is yes.', pass: true },
    { response: 'Yes.', pass: false },
  ],
});

export const numberHighlightedSections = defineConstraint({
  id: 'detectable_format:number_highlighted_sections',
  source: 'ifeval',
  kwargs: z.strictObject({ num_highlights: kw.count() }),
  check(response, { num_highlights }) {
    let n = 0;
    for (const [h] of response.matchAll(/\*[^\n*]*\*/gu)) if (pyStrip(h.replace(/^\*+|\*+$/g, '')) !== '') n++;
    for (const [h] of response.matchAll(/\*\*[^\n*]*\*\*/gu)) if (pyStrip(h.slice(2, -2)) !== '') n++;
    return verdict(n >= num_highlights, `found ${plural(n, 'highlighted section')}, expected at least ${num_highlights}`);
  },
  examples: [
    { response: '*a* *b* **c**', kwargs: { num_highlights: 3 }, pass: true },
    { response: '**bold** only', kwargs: { num_highlights: 2 }, pass: false },
  ],
});

/** The reference's `re.split(r"\s?" + spliter + r"\s?\d+\s?", text)`: its matches are the section marks. */
const sectionMarker = (spliter: string) => labelPattern(spliter, { before: '\\s?', after: '\\s?\\d+\\s?' });

export const multipleSections = defineConstraint({
  id: 'detectable_format:multiple_sections',
  source: 'ifeval',
  kwargs: z
    .strictObject({ section_spliter: kw.str().transform((s) => s.trim()), num_sections: kw.count() })
    .superRefine((k, ctx) => {
      const compiled = sectionMarker(k.section_spliter);
      if (typeof compiled === 'string') ctx.addIssue({ code: 'custom', message: compiled, path: ['section_spliter'] });
    }),
  check(response, { section_spliter, num_sections }) {
    const n = (sectionMarker(section_spliter) as LabelPattern).count(response);
    return verdict(n >= num_sections, `found ${plural(n, 'section')} marked "${section_spliter} N", expected at least ${num_sections}`);
  },
  examples: [
    { response: 'SECTION 1\nIntro\nSECTION 2\nBody', kwargs: { section_spliter: 'SECTION', num_sections: 2 }, pass: true },
    { response: 'Section 1\nIntro', kwargs: { section_spliter: 'SECTION', num_sections: 2 }, pass: false },
  ],
});

/**
 * `text` with NaN, Infinity and -Infinity outside strings written `null`, as
 * `text.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/gsu, …)` writes it; null when there is none.
 * `null` is a JSON value exactly where Python's scanner reads these (a value's start) and glues to
 * nothing: written `0`, `[-NaN]`, `[1NaN]` and `[--Infinity]` parsed (`[-0]`, `[10]`), which
 * Python's json.loads refuses.
 * Scanned once: the pattern retried every later quote of an unclosed string to the end of the text
 * (quadratic in `"\"\"\"…`). Once one string does not close, no later one does (a later quote is one
 * that string escaped, and reading on from it follows the same path), so quotes are ordinary then.
 */
function withoutNonFinite(text: string): string | null {
  let out = '';
  let from = 0;
  let strings = true;
  for (let i = 0; i < text.length; ) {
    if (strings && text[i] === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j < text.length) {
        i = j + 1;
        continue;
      }
      strings = false;
    }
    const word = text.startsWith('-Infinity', i) ? 9 : text.startsWith('Infinity', i) ? 8 : text.startsWith('NaN', i) ? 3 : 0;
    if (word === 0) {
      i++;
      continue;
    }
    out += `${text.slice(from, i)}null`;
    i += word;
    from = i;
  }
  return from === 0 ? null : out + text.slice(from);
}

/** Python's `json.loads` also takes NaN, Infinity and -Infinity outside strings. */
function pyJsonParses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    const replaced = withoutNonFinite(text);
    if (replaced === null) return false;
    try {
      JSON.parse(replaced);
      return true;
    } catch {
      return false;
    }
  }
}

function removePrefix(s: string, prefix: string): string {
  return s.startsWith(prefix) ? s.slice(prefix.length) : s;
}

export const jsonFormat = defineConstraint({
  id: 'detectable_format:json_format',
  source: 'ifeval',
  kwargs: NO_KWARGS,
  check(response) {
    let text = pyStrip(response);
    for (const prefix of ['```json', '```Json', '```JSON', '```']) text = removePrefix(text, prefix);
    if (text.endsWith('```')) text = text.slice(0, -3);
    return verdict(pyJsonParses(pyStrip(text)), 'the response is not valid JSON (prose outside the JSON or a syntax error)');
  },
  examples: [
    { response: '```json\n{"a": 1}\n```', pass: true },
    { response: 'Here it is: {"a": 1}', pass: false },
  ],
});

/**
 * Whether the reference's `re.findall(r"<<[^\n]+>>", text)` finds a title that is not empty once its
 * brackets and spaces are stripped. Greedy on one line, a match runs from the line's first `<<` to
 * its last `>>`, so there is at most one per line: found line by line with indexOf, where the regex
 * retried every `<<` of a line to its end (quadratic on a line of `<`).
 */
function titleLines(text: string): boolean {
  // The first `<<` of each line that has one; from there to the line's end, the last `>>`.
  for (let open = text.indexOf('<<'); open >= 0; ) {
    let end = text.indexOf('\n', open);
    if (end < 0) end = text.length;
    const line = text.slice(open, end);
    const close = line.lastIndexOf('>>');
    if (close >= 3) {
      let from = 0;
      let to = close + 2;
      while (line[from] === '<') from++;
      while (to > from && line[to - 1] === '>') to--;
      if (pyStrip(line.slice(from, to)) !== '') return true;
    }
    open = text.indexOf('<<', end + 1);
  }
  return false;
}

export const title = defineConstraint({
  id: 'detectable_format:title',
  source: 'ifeval',
  kwargs: NO_KWARGS,
  check(response) {
    return titleLines(response) ? PASS : fail('no title wrapped in double angular brackets, such as <<title>>');
  },
  examples: [
    { response: '<<Poem of Joy>>\nLines.', pass: true },
    { response: '<< >> no title', pass: false },
  ],
});

export const FORMAT_CONSTRAINTS = [
  numberPlaceholders,
  postscript,
  numberBulletLists,
  constrainedResponse,
  numberHighlightedSections,
  multipleSections,
  jsonFormat,
  title,
];
