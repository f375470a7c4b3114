import { checkWith, passes } from '../../test/pure/constraint';
import { characterReverse, csvCity, csvQuotes, csvSpecialCharacter, dateFormatList, europeanCapitalsSort, mcqCountLength, multiples, wordReverse } from './custom';

describe('IFBench custom constraints', () => {
  it('multiples: exactly the multiples of 7 from 10 to 50, however separated', () => {
    expect(passes(multiples, '14\n21\n28\n35\n42\n49')).toBe(true);
    expect(passes(multiples, '14,21,28,35,42,49')).toBe(true);
    expect(checkWith(multiples, '7, 14, 21, 28, 35, 42, 49').reason).toBe('printed 7, 14, 21, 28, 35, 42, 49, expected 14, 21, 28, 35, 42, 49');
    expect(checkWith(multiples, 'none').reason).toBe('printed no numbers, expected 14, 21, 28, 35, 42, 49');
  });

  it('csv_special_character: a field quoted in the row holds a character that is not \\w or \\s (re.match(r\'^".*[^\\w\\s].*"\'))', () => {
    const response = (field: string) =>
      ['ProductID,Category,Brand,Price,Stock', `1,Tools,${field},9.99,3`, ...Array.from({ length: 13 }, (_, i) => `${i + 2},Tools,Acme,1.00,${i}`)].join('\n');
    // Each verdict was taken from Python: csv.reader over the response with its quotes tripled, then the reference's re.match.
    const python: Array<[string, boolean]> = [
      ['"Acme & Co"', true],
      ['"Acme Co"', false],
      ['"&"', true],
      ['""', false],
      ['"a"b"', true],
      ['"a & b', false],
      ['a & "b"', false],
      ['"a_b"', false],
      ['"x", "y"', false],
      ['" & "', true],
      ['"é"', false],
      ['"a-b" c', true],
      ['"a" & "b"', true],
      ['"Acme\u00a0Co"', false],
      ['"50%"', true],
      ['"a b" x"', true],
      ['"', false],
    ];
    for (const [field, ok] of python) expect([field, passes(csvSpecialCharacter, response(field))]).toEqual([field, ok]);
    expect(checkWith(csvSpecialCharacter, 'ID,Category,Brand,Price,Stock\n1,a,b,c,d').reason).toBe('the header is not ProductID,Category,Brand,Price,Stock');
  });

  it('csv_city and csv_quotes: the header, the row count and the fields of each row', () => {
    const city = (rows: number, extra = '') => ['ID,Country,City,Year,Count', ...Array.from({ length: rows }, (_, i) => `${i},France,Paris,2020,${i}${extra}`)].join('\n');
    expect(passes(csvCity, city(7))).toBe(true);
    expect(checkWith(csvCity, city(6)).reason).toBe('found 7 CSV rows, expected a header and 7 rows');
    expect(checkWith(csvCity, city(7, ',x')).reason).toBe('row 1 does not have 5 fields');
    const quoted = (cell: (n: number) => string) =>
      ['"StudentID"\t"Subject"\t"Grade"\t"Semester"\t"Score"', ...[1, 2, 3].map((n) => `${cell(n)}\t"Math"\t"A"\t"Fall"\t"90"`)].join('\n');
    expect(passes(csvQuotes, quoted((n) => `"${n}"`))).toBe(true);
    expect(checkWith(csvQuotes, quoted((n) => (n === 2 ? '2' : `"${n}"`))).reason).toBe('row 2 has a field not enclosed in double quotes');
  });

  it('date_format_list: YYYY-MM-DD dates within Napoleon\'s lifetime, with only the checks the reference makes', () => {
    expect(passes(dateFormatList, '1769-08-15, 1821-05-05')).toBe(true);
    expect(checkWith(dateFormatList, '1768-12-31').reason).toBe("1768-12-31 is outside Napoleon's lifetime");
    expect(checkWith(dateFormatList, '1800-02-30').reason).toBe('1800-02-30 is not a valid date');
    expect(checkWith(dateFormatList, '1800-04-31').reason).toBe('1800-04-31 is not a valid date');
    expect(checkWith(dateFormatList, '1800-13-01').reason).toBe('1800-13-01 is not a valid date');
    // February 29 of any year, month 00 and day 00 pass: the reference checks no more.
    expect(passes(dateFormatList, '1801-02-29, 1800-00-10, 1800-05-00')).toBe(true);
    expect(checkWith(dateFormatList, '1805-12-2').reason).toBe('"1805-12-2" is not a YYYY-MM-DD date');
  });

  it('european_capitals_sort: the 27 capitals north to south, accents folded', () => {
    const capitals =
      'Reykjavík, Helsinki, Oslo, Tallinn, Stockholm, Riga, Moscow, Copenhagen, Vilnius, Minsk, Dublin, Berlin, Amsterdam, Warsaw, London, Brussels, Prague, Luxembourg, Paris, Vienna, Bratislava, Budapest, Vaduz, Chisinau, Bern, Ljubljana, Zagreb';
    expect(passes(europeanCapitalsSort, capitals)).toBe(true);
    expect(checkWith(europeanCapitalsSort, capitals.replace('Oslo, Tallinn', 'Tallinn, Oslo')).reason).toBe('capital 3 should be Oslo');
    expect(checkWith(europeanCapitalsSort, 'Oslo, Helsinki').reason).toBe('listed 2 capitals, expected 27');
  });

  it('word_reverse and character_reverse: the answer about the bald eagle, reversed', () => {
    expect(passes(wordReverse, 'eagle bald the is symbol national The')).toBe(true);
    expect(checkWith(wordReverse, 'The national symbol is the bald eagle.').reason).toBe('reversed word by word, the answer does not mention "bald eagle"');
    expect(passes(characterReverse, '.ELGAE DLAB ehT')).toBe(true);
    expect(passes(characterReverse, 'eagle bald')).toBe(false);
  });

  it('mcq_count_length: four questions of five options each, each question longer than the one before', () => {
    const mcq = (stems: string[], options = 5) =>
      stems.map((s, i) => `Question ${i + 1}: ${s}\n${'ABCDE'.slice(0, options).split('').map((l) => `${l}. option`).join('\n')}`).join('\n\n');
    const stems = ['Why?', 'Why so?', 'Why is it?', 'Why is it so?'];
    expect(passes(mcqCountLength, mcq(stems))).toBe(true);
    expect(checkWith(mcqCountLength, mcq([stems[0]!, stems[2]!, stems[1]!, stems[3]!])).reason).toBe('question 3 is not longer than question 2');
    expect(checkWith(mcqCountLength, mcq(stems, 4)).reason).toBe('question 1 has 4 options, expected 5');
    expect(checkWith(mcqCountLength, mcq(stems.slice(0, 3))).reason).toBe('found 3 questions, expected 4');
    expect(checkWith(mcqCountLength, `Here you go.\n${mcq(stems)}`).reason).toBe('the response does not start with "Question" (no explanation allowed)');
  });
});
