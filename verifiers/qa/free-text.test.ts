import { scorePure } from '../../core/score';
import type { Sample } from '../../core/sample';
import type { JsonObject } from '../../core/json';
import type { PureVerifier } from '../../core/verifier';
import { qa } from '.';
import { tokenize, tokensText } from './tokens';

function score(answer: string, gold: string, threshold?: number) {
  const label: JsonObject = threshold === undefined ? { answers: [gold] } : { answers: [gold], threshold };
  const sample: Sample = { id: 's', verifier: 'qa', response: `\\boxed{${answer}}`, label, groupId: '', responseTokens: 0, metadata: {} };
  return scorePure(qa as PureVerifier, sample);
}

/*
 * Answers that are wrong however close they look. Each earned reward 1 from qa 1.2.0: a sign or a
 * decimal point dropped as punctuation, a digit or a short token inside the 0.9 similarity, a prefix
 * or suffix one letter from its sibling, an upper-case `A` dropped as an article.
 */
const WRONG: Array<[string, string, string]> = [
  ['sign', '-273.15 K', '273.15 K'],
  ['sign (U+2212)', '−40 °C', '40 °C'],
  ['sign in LaTeX', '$-5\\,\\text{V}$', '5 V'],
  ['digit slip in a long number', '12345678902', '12345678901'],
  ['ten times too large', '123456789010', '12345678901'],
  ['digit slip beside words', 'about 6.022 moles of sodium chloride', 'about 6.023 moles of sodium chloride'],
  ['decimal point', '2.5 meters per second squared', '25 meters per second squared'],
  ['decimal point moved', '27.315 kelvin absolute', '273.15 kelvin absolute'],
  ['exponent', '6.02 \\times 10^{23} particles per mole', '6.02 \\times 10^{22} particles per mole'],
  ['exponent sign', '1.6 \\times 10^{-19} coulombs', '1.6 \\times 10^{19} coulombs'],
  ['superscript exponent', '3 × 10⁸ meters per second', '3 × 10⁷ meters per second'],
  ['power of ten read as digits', '10^5 pascals of pressure', '105 pascals of pressure'],
  ['percent sign', '50% of the offspring', '50 of the offspring'],
  ['plus-minus', '9.81 ± 0.02 metres per second', '9.81 0.02 metres per second'],
  ['inequality', 'x > 5 for all solutions', 'x < 5 for all solutions'],
  ['subscript', 'H₂O₂ hydrogen peroxide', 'H₂O hydrogen peroxide'],
  ['charge', 'Fe²⁺ ferrous ion in solution', 'Fe³⁺ ferrous ion in solution'],
  ['isotope', 'uranium-235 fission products', 'uranium-238 fission products'],
  ['unit prefix (symbol)', '5 kPa of gauge pressure measured', '5 MPa of gauge pressure measured'],
  ['unit (symbol)', 'an acceleration of 9.8 m/s^2 downward', 'an acceleration of 9.8 m/s downward'],
  ['unit prefix (word)', 'ten decimeters', 'ten decameters'],
  ['unit prefix (word)', 'milligrams of sodium per liter of blood plasma', 'micrograms of sodium per liter of blood plasma'],
  ['chemical symbol', 'NaCl crystals form cubes', 'NaBr crystals form cubes'],
  ['chemical suffix', 'perchlorate', 'perchlorite'],
  ['organic family', 'cyclohexane', 'cyclohexene'],
  ['opposite prefix', 'intracellular fluid compartment volume', 'intercellular fluid compartment volume'],
  ['negation prefix', 'irreversible reaction', 'reversible reaction'],
  ['Roman numeral', 'Type II diabetes mellitus', 'Type III diabetes mellitus'],
  ['Roman numeral (long)', 'Louis XVIII of France', 'Louis XVII of France'],
  ['number word', 'one million years ago', 'one billion years ago'],
  ['a short word dropped', 'sodium chloride dissolved in pure water is not acidic', 'sodium chloride dissolved in pure water is acidic'],
  ['a one-letter name', 'deficiency of vitamin B in the elderly', 'deficiency of vitamin A in the elderly'],
  ['a name letter dropped', 'Hepatitis', 'Hepatitis A'],
  ['a letter after a code', 'BRCA1 gene mutation', 'BRCA2 gene mutation'],
];

/**
 * Answers that are right: the same answer in other case, spacing, hyphens, articles, spelling slips
 * or number forms (qa 1.2.0 gave 0 to eleven of them: the number, symbol and subscript forms).
 */
const RIGHT: Array<[string, string, string, number?]> = [
  ['case and articles', 'The Mitochondria', 'mitochondria'],
  ['LaTeX text', '\\text{the mitochondria}.', 'Mitochondria'],
  ['hyphenation', '1,3 butadiene', '1,3-butadiene'],
  ['joined words', 'xray crystallography', 'X-ray crystallography'],
  ['split words', 'photo synthesis', 'photosynthesis'],
  ['typo in a long word', 'photosynthesys', 'photosynthesis'],
  ['typo among words', 'the oxidative phosphorilation pathway', 'oxidative phosphorylation pathway'],
  ['a short word exact, a long one slipped', 'cell membrane permeabilty', 'cell membrane permeability'],
  ['typo with a lower threshold', 'mitochondrion', 'mitochondria', 0.8],
  ['trailing zeros', '0.50 M', '0.5 M'],
  ['e-notation and times ten', '6.02e23', '6.02 \\times 10^{23}'],
  ['superscripts and E', '6.02 × 10²³ mol⁻¹', '6.02E+23 mol^-1'],
  ['x and asterisk forms', '3x10^8 m/s', '3*10**8 m/s'],
  ['power of ten alone', '10^{-3} mol', '0.001 mol'],
  ['thousands separators', '1,000,000 J', '1 000 000 J'],
  ['thin space in LaTeX', '1\\,500 kg', '1500 kg'],
  ['minus sign forms', '−40', '-40'],
  ['percent written out', '25 percent', '25\\%'],
  ['plus-minus forms', '5 +/- 0.1 V', '5 \\pm 0.1 V'],
  ['subscripts', 'H₂SO₄', 'H2SO4'],
  ['charge forms', 'Fe^{3+}', 'Fe³⁺'],
  ['fraction forms', '\\frac{1}{2}', '1/2'],
  ['degree sign', '90°', '90'],
  ['ampersand', 'Watson & Crick', 'Watson and Crick'],
];

describe('qa free text: answers that must earn 0', () => {
  it.each(WRONG)('%s: %s against %s', (_kind, answer, gold) => {
    expect(score(answer, gold)).toMatchObject({ status: 'OK', reward: 0, reason: 'wrong_answer' });
  });

  it('names what differs', () => {
    expect(score('12345678902', '12345678901').details).toMatchObject({ mismatch: 'numbers differ: [12345678902] vs [12345678901]' });
    expect(score('-273.15 K', '273.15 K').details).toMatchObject({ normalized: '-273.15 k', mismatch: 'numbers differ: [-273.15] vs [273.15]' });
    expect(score('perchlorite', 'perchlorate').details).toMatchObject({ mismatch: expect.stringContaining('-ite') });
  });
});

describe('qa free text: answers that must earn 1', () => {
  // Every row has four columns: jest passes a missing last one as the `done` callback.
  it.each(RIGHT.map(([kind, answer, gold, threshold]) => [kind, answer, gold, threshold ?? 0.9] as const))('%s: %s against %s', (_kind, answer, gold, threshold) => {
    expect(score(answer, gold, threshold)).toMatchObject({ status: 'OK', reward: 1, reason: expect.stringMatching(/^(exact|fuzzy)_match$/) });
  });

  it('calls a spelling slip fuzzy and the same words spaced otherwise exact', () => {
    expect(score('photosynthesys', 'photosynthesis')).toMatchObject({ reason: 'fuzzy_match', details: { similarity: 0.928571 } });
    expect(score('xray', 'X-ray')).toMatchObject({ reason: 'exact_match' });
  });

  it('threshold 1 allows no slip', () => {
    expect(score('photosynthesys', 'photosynthesis', 1)).toMatchObject({ reward: 0 });
  });
});

describe('qa free text: the comparison form', () => {
  it.each([
    ['-273.15 K', '-273.15 k'],
    ['6.02 \\times 10^{23}', '6.02e23'],
    ['0.050', '0.05'],
    ['1.6 × 10⁻¹⁹ C', '1.6e-19 c'],
    ['1,3-butadiene', '1 3 butadiene'],
    ['12,345,678', '12345678'],
    ['x ≥ −2', 'x ≥ -2'],
    ['Fe³⁺', 'fe 3 +'],
    ['Cl−', 'cl −'],
    ['A plant cell', 'plant cell'],
    ['vitamin A', 'vitamin a'],
  ])('%s reads as %s', (text, form) => {
    expect(tokensText(tokenize(text))).toBe(form);
  });

  it('marks names, codes and numerals as exact words', () => {
    const exact = (text: string) => tokenize(text).filter((t) => t.kind === 'word' && t.exact).map((t) => t.text);
    expect(exact('NaCl and mRNA in XVIII cells')).toEqual(['nacl', 'mrna', 'xviii']);
    expect(exact('CO2 with p53 over sixteenth millions')).toEqual(['co', 'p', 'sixteenth', 'millions']);
    expect(exact('Mitochondria MITOCHONDRIA')).toEqual([]);
  });
});

describe('qa free text: the word rule', () => {
  it('a word under ten letters has no slip at the default threshold (proton is not photon), a lower threshold allows one', () => {
    expect(score('a proton is emitted when the atom relaxes', 'a photon is emitted when the atom relaxes')).toMatchObject({ reward: 0 });
    expect(score('membrane transprt', 'membrane transport')).toMatchObject({ reward: 0 });
    expect(score('membrane transprt', 'membrane transport', 0.85)).toMatchObject({ reward: 1, reason: 'fuzzy_match' });
  });

  it('nothing may be added or left out, however long the rest', () => {
    expect(score('the enzyme is not denatured at body temperature', 'the enzyme is denatured at body temperature')).toMatchObject({ reward: 0 });
    expect(score('glucose', 'glucose and fructose')).toMatchObject({ reward: 0 });
  });

  it('reads a megabyte of hostile answer against a short gold without aligning it', () => {
    expect(score(`${'9 '.repeat(500_000)}`, '9 9')).toMatchObject({ status: 'OK', reward: 0 });
  });
});
