import { z } from 'zod';
import { defineConstraint, fail, kw, NO_KWARGS, PASS, plural, verdict } from '../constraint';
import { PY_SPACE, pyStrip } from '../text/py';
import { labelPattern, type LabelPattern } from '../text/label-pattern';

const SP = `[${PY_SPACE}]`;
/** Python MULTILINE `^`: the start of the text or just after "\n" (not "\r", as in JavaScript). */
const LINE_START = '(?:^|(?<=\\n))';

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
    // Neither anchored to a line start nor to the end: "help.s. me" holds a "P.S.".
    const re =
      postscript_marker === 'P.P.S'
        ? new RegExp(`${SP}*p\\.${SP}?p\\.${SP}?s`, 'u')
        : postscript_marker === 'P.S.'
          ? new RegExp(`${SP}*p\\.${SP}?s\\.`, 'u')
          : // The reference searches for `\s*` + marker: the optional spaces cannot decide whether it is found.
            labelPattern(postscript_marker.toLowerCase());
    const found = typeof re === 'string' ? false : re.test(text); // a refused marker never reaches here
    return verdict(found, `no postscript starting with "${postscript_marker}"`);
  },
  examples: [
    { response: 'Body.\n\nP.S. Bring snacks.', kwargs: { postscript_marker: 'P.S.' }, pass: true },
    { response: 'Body.\n\nP.P.S. Bring snacks.', kwargs: { postscript_marker: 'P.P.S' }, pass: true },
    { response: 'Body only.', kwargs: { postscript_marker: 'P.S.' }, pass: false },
  ],
});

const STAR_BULLET = new RegExp(`${LINE_START}${SP}*\\*[^*][^\\n]*`, 'gu');
const DASH_BULLET = new RegExp(`${LINE_START}${SP}*-[^\\n]*`, 'gu');

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

/** Python's `json.loads` also takes NaN, Infinity and -Infinity outside strings. */
function pyJsonParses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    const replaced = text.replace(/"(?:[^"\\]|\\.)*"|-?Infinity|NaN/gsu, (m) => (m.startsWith('"') ? m : '0'));
    if (replaced === text) return false;
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

export const title = defineConstraint({
  id: 'detectable_format:title',
  source: 'ifeval',
  kwargs: NO_KWARGS,
  check(response) {
    for (const [t] of response.matchAll(/<<[^\n]+>>/gu)) if (pyStrip(t.replace(/^<+/, '').replace(/>+$/, '')) !== '') return PASS;
    return fail('no title wrapped in double angular brackets, such as <<title>>');
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
