import { defineConstraint, fail, NO_KWARGS, PASS, plural, verdict } from '../constraint';
import { parseCsv } from '../text/csv';
import { sentTokenize } from '../text/punkt';
import { asciiFold, PUNCT_AND_SPACE, PY_SPACE, PY_WORD, pySplit, pyStrip, removePunctuation } from '../text/py';

/**
 * The IFBench `custom:*` instructions each carry one fixed task ("count from 10 to 50 but only
 * print multiples of 7"), so they take no kwargs.
 */

export const multiples = defineConstraint({
  id: 'custom:multiples',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const found = response.replace(/,/g, ', ').match(/\p{Nd}+/gu) ?? [];
    return verdict(found.join(' ') === '14 21 28 35 42 49', `printed ${found.join(', ') || 'no numbers'}, expected 14, 21, 28, 35, 42, 49`);
  },
  examples: [
    { response: '14, 21, 28, 35, 42, 49', pass: true },
    { response: '7, 14, 21, 28, 35, 42, 49', pass: false },
  ],
});

const OPTION_LINE = /^[A-Ea-e][.|)][\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*[\p{L}\p{N}_]/u;

// The reference splits on `\n*Question \d+…`; a match starts only where a run of newlines starts
// (or takes none), else every newline of a long run was tried against the rest of the run.
const QUESTION_SPLIT = new RegExp(`(?:(?<!\\n)\\n+)?(?:Question \\p{Nd}+[.|):;]?[${PY_SPACE}]*)`, 'u');

/** A character that is not a letter, digit, `_` or space (Python `\w` and `\s` for str patterns). */
const SPECIAL = new RegExp(`[^\\p{Nd}${PY_WORD}${PY_SPACE}]`, 'u');

/**
 * The reference's `re.match(r'^".*[^\w\s].*"', field)`: on the field's first line, a special character
 * after its opening quote and before a later quote, that is before the line's last quote. Found with
 * indexes: the pattern backtracked over both `.*` (quadratic in an unclosed field).
 */
function quotedSpecial(field: string): boolean {
  if (!field.startsWith('"')) return false;
  const newline = field.indexOf('\n');
  const close = field.lastIndexOf('"', (newline < 0 ? field.length : newline) - 1);
  return close > 1 && SPECIAL.test(field.slice(1, close));
}

export const mcqCountLength = defineConstraint({
  id: 'custom:mcq_count_length',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const start = response.indexOf('Question');
    if (start !== 0) return fail('the response does not start with "Question" (no explanation allowed)');
    const parts = response.split(QUESTION_SPLIT);
    const questions = (parts[0] === '' ? parts.slice(1) : parts).map((q) => pyStrip(q)).filter((q) => q !== '');
    if (questions.length !== 4) return fail(`found ${plural(questions.length, 'question')}, expected 4`);
    const lengths: number[] = [];
    for (const [i, q] of questions.entries()) {
      let text = '';
      let options = 0;
      let done = false;
      for (const line of q.split('\n')) {
        if (OPTION_LINE.test(pyStrip(line))) {
          options++;
          done = true;
        } else if (!done) text += ` ${pyStrip(line)}`;
      }
      if (options !== 5) return fail(`question ${i + 1} has ${plural(options, 'option')}, expected 5`);
      lengths.push(pyStrip(text).length);
    }
    for (let i = 0; i + 1 < lengths.length; i++) {
      if ((lengths[i] as number) >= (lengths[i + 1] as number)) return fail(`question ${i + 2} is not longer than question ${i + 1}`);
    }
    return PASS;
  },
  examples: [
    {
      response: [1, 2, 3, 4]
        .map((n) => `Question ${n}: ${'Which art movement'.padEnd(18 + n * 5, '?')}\nA. one\nB. two\nC. three\nD. four\nE. five`)
        .join('\n\n'),
      pass: true,
    },
    { response: 'Here are the questions.\nQuestion 1: Which?\nA. one', pass: false },
  ],
});

export const reverseNewline = defineConstraint({
  id: 'custom:reverse_newline',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const lines = response
      .split('\n')
      .map((l) => pyStrip(l, PUNCT_AND_SPACE))
      .filter((l) => l !== '');
    const start = lines.findIndex((l) => l.includes('Zimbabwe'));
    if (start === -1) return fail('the list does not start at Zimbabwe');
    const target = lines.slice(start).map(asciiFold);
    if (target.length < 52) return fail(`found ${plural(target.length, 'line')} from Zimbabwe on, expected at least 52`);
    const sorted = [...target].sort().reverse();
    return verdict(
      target.every((l, i) => l === sorted[i]),
      'the lines are not in reverse alphabetical order',
    );
  },
  examples: [
    { response: ['Zimbabwe', 'Zambia', ...Array.from({ length: 50 }, (_, i) => `Country ${String(99 - i).padStart(2, '0')}`)].join('\n'), pass: true },
    { response: 'Zimbabwe\nAlgeria\nZambia', pass: false },
  ],
});

export const wordReverse = defineConstraint({
  id: 'custom:word_reverse',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const text = pySplit(removePunctuation(pyStrip(response.toLowerCase()))).reverse().join(' ');
    if (!text.includes('bald eagle')) return fail('reversed word by word, the answer does not mention "bald eagle"');
    return verdict(sentTokenize(text).includes(text), 'reversed word by word, the answer is not a single sentence');
  },
  examples: [
    { response: 'eagle bald the is symbol national The', pass: true },
    { response: 'The national symbol is the bald eagle.', pass: false },
  ],
});

export const characterReverse = defineConstraint({
  id: 'custom:character_reverse',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    return verdict(response.toLowerCase().includes('elgae dlab'), 'reversed letter by letter, the answer does not contain "bald eagle"');
  },
  examples: [
    { response: '.elgae dlab ehT', pass: true },
    { response: 'The bald eagle.', pass: false },
  ],
});

export const sentenceAlphabet = defineConstraint({
  id: 'custom:sentence_alphabet',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const sentences = sentTokenize(response);
    if (sentences.length !== 26) return fail(`found ${plural(sentences.length, 'sentence')}, expected 26`);
    for (const [i, sentence] of sentences.entries()) {
      const word = pySplit(sentence)[0];
      const letter = String.fromCharCode(97 + i);
      if (word === undefined || Array.from(word.toLowerCase())[0] !== letter) return fail(`sentence ${i + 1} does not start with "${letter}"`);
    }
    return PASS;
  },
  examples: [
    { response: 'abcdefghijklmnopqrstuvwxyz'.split('').map((c) => `${c.toUpperCase()}x went.`).join(' '), pass: true },
    { response: 'Anna went. Carl came.', pass: false },
  ],
});

const CAPITALS_BY_LATITUDE =
  'Reykjavik Helsinki Oslo Tallinn Stockholm Riga Moscow Copenhagen Vilnius Minsk Dublin Berlin Amsterdam Warsaw London Brussels Prague Luxembourg Paris Vienna Bratislava Budapest Vaduz Chisinau Bern Ljubljana Zagreb'.split(
    ' ',
  );

export const europeanCapitalsSort = defineConstraint({
  id: 'custom:european_capitals_sort',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const capitals = asciiFold(response)
      .split(',')
      .filter((c) => pyStrip(c) !== '');
    if (capitals.length !== CAPITALS_BY_LATITUDE.length) return fail(`listed ${capitals.length} capitals, expected ${CAPITALS_BY_LATITUDE.length}`);
    const wrong = capitals.findIndex((c, i) => pyStrip(c) !== CAPITALS_BY_LATITUDE[i]);
    return verdict(wrong === -1, `capital ${wrong + 1} should be ${CAPITALS_BY_LATITUDE[wrong]}`);
  },
  examples: [
    { response: CAPITALS_BY_LATITUDE.join(', '), pass: true },
    { response: 'Oslo, Helsinki', pass: false },
  ],
});

export const csvCity = defineConstraint({
  id: 'custom:csv_city',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const rows = parseCsv(response);
    if (rows.length !== 8) return fail(`found ${plural(rows.length, 'CSV row')}, expected a header and 7 rows`);
    if ((rows[0] as string[]).join('\u0000') !== ['ID', 'Country', 'City', 'Year', 'Count'].join('\u0000')) return fail('the header is not ID,Country,City,Year,Count');
    const bad = rows.slice(1).findIndex((r) => r.length !== 5);
    return verdict(bad === -1, `row ${bad + 1} does not have 5 fields`);
  },
  examples: [
    { response: ['ID,Country,City,Year,Count', ...Array.from({ length: 7 }, (_, i) => `${i},France,Paris,2020,${i}`)].join('\n'), pass: true },
    { response: 'ID,Country,City,Year,Count\n1,France,Paris,2020,3', pass: false },
  ],
});

export const csvSpecialCharacter = defineConstraint({
  id: 'custom:csv_special_character',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const header = pyStrip(response.split('\n')[0] ?? '');
    if (!/^(ProductID|"ProductID"),[ \t]*(Category|"Category"),[ \t]*(Brand|"Brand"),[ \t]*(Price|"Price"),[ \t]*(Stock|"Stock")$/.test(header)) {
      return fail('the header is not ProductID,Category,Brand,Price,Stock');
    }
    // Tripling the quotes keeps them in the parsed fields, as the reference does.
    const rows = parseCsv(response.replace(/"/g, '"""'));
    if (rows.length !== 15) return fail(`found ${plural(rows.length, 'CSV row')}, expected a header and 14 rows`);
    for (const [i, row] of rows.slice(1).entries()) {
      if (row.length !== 5) return fail(`row ${i + 1} does not have 5 fields`);
      if (row.some(quotedSpecial)) return PASS;
    }
    return fail('no field holds a special character in double quotes');
  },
  examples: [
    {
      response: ['ProductID,Category,Brand,Price,Stock', '1,Tools,"Acme & Co",9.99,3', ...Array.from({ length: 13 }, (_, i) => `${i + 2},Tools,Acme,1.00,${i}`)].join('\n'),
      pass: true,
    },
    { response: 'ProductID,Category,Brand,Price,Stock\n1,Tools,Acme,9.99,3', pass: false },
  ],
});

export const csvQuotes = defineConstraint({
  id: 'custom:csv_quotes',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const header = pyStrip(response.split('\n')[0] ?? '');
    if (!/^(StudentID|"StudentID")\t *(Subject|"Subject")\t *(Grade|"Grade")\t *(Semester|"Semester")\t *(Score|"Score")$/.test(header)) {
      return fail('the header is not StudentID, Subject, Grade, Semester, Score separated by tabs');
    }
    const rows = parseCsv(response.replace(/"/g, '"""'), '\t');
    if (rows.length !== 4) return fail(`found ${plural(rows.length, 'row')}, expected a header and 3 rows`);
    for (const [i, row] of rows.entries()) {
      if (row.length !== 5) return fail(`row ${i} does not have 5 tab-separated fields`);
      const quoted = row.every((f) => {
        const s = pyStrip(f);
        return s.startsWith('"') && s.endsWith('"');
      });
      if (!quoted) return fail(`row ${i} has a field not enclosed in double quotes`);
    }
    return PASS;
  },
  examples: [
    { response: ['"StudentID"\t"Subject"\t"Grade"\t"Semester"\t"Score"', ...[1, 2, 3].map((n) => `"${n}"\t"Math"\t"A"\t"Fall"\t"90"`)].join('\n'), pass: true },
    { response: 'StudentID\tSubject\tGrade\tSemester\tScore\n1\tMath\tA\tFall\t90', pass: false },
  ],
});

export const dateFormatList = defineConstraint({
  id: 'custom:date_format_list',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    for (const raw of pyStrip(response).split(',')) {
      const date = pyStrip(raw);
      const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(date);
      if (!m) return fail(`"${date}" is not a YYYY-MM-DD date`);
      const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
      if (year < 1769 || year > 1821) return fail(`${date} is outside Napoleon's lifetime`);
      // Only the checks the reference makes: month 00 or day 00 pass.
      const maxDay = month === 2 ? 29 : [4, 6, 9, 11].includes(month) ? 30 : [1, 3, 5, 7, 8, 10, 12].includes(month) ? 31 : Infinity;
      if (month > 12 || day > maxDay) return fail(`${date} is not a valid date`);
    }
    return PASS;
  },
  examples: [
    { response: '1796-04-12, 1805-12-02', pass: true },
    { response: 'December 2, 1805', pass: false },
  ],
});

export const CUSTOM_CONSTRAINTS = [
  multiples,
  mcqCountLength,
  reverseNewline,
  wordReverse,
  characterReverse,
  sentenceAlphabet,
  europeanCapitalsSort,
  csvCity,
  csvSpecialCharacter,
  csvQuotes,
  dateFormatList,
];
