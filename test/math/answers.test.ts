import type { JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import { scorePure } from '../../core/score';
import type { PureVerifier } from '../../core/verifier';
import { math } from '../../verifiers/math';

/*
 * Realistic answers beyond Math-Verify's cases, end to end through the verifier: the ways models and
 * datasets write one answer, and the near-misses that must stay wrong. Each row is
 * [gold, answer, rewarded]; an answer is scored as `\boxed{answer}` unless the table says responses.
 */

type Row = [gold: string, answer: string, rewarded: boolean];

function sample(response: string, label: JsonObject): Sample {
  return { id: 's', verifier: 'math', response, label, groupId: '', responseTokens: 0, metadata: {} };
}
const rewarded = (response: string, gold: string) => {
  const outcome = scorePure(math as PureVerifier, sample(response, { gold }));
  expect(outcome.status).toBe('OK');
  return outcome.status === 'OK' && outcome.reward === 1;
};

describe('math answers: units, currency and words', () => {
  it.each<Row>([
    [String.raw`5\text{ cm}^2`, String.raw`5`, true],
    [String.raw`5`, String.raw`5\text{ cm}^2`, true],
    [String.raw`5`, String.raw`5 \mathrm{cm}^2`, true],
    [String.raw`\$12.50`, String.raw`12.5`, true],
    [String.raw`12.50`, String.raw`\$12.50`, true],
    [String.raw`12.5`, String.raw`12 dollars`, false],
    [String.raw`12`, String.raw`12 dollars`, true],
    [String.raw`12`, String.raw`\$12`, true],
    [String.raw`12`, String.raw`12\text{ dollars}`, true],
    [String.raw`5`, String.raw`5\text{ cm}^{2}`, true],
    [String.raw`5`, String.raw`5\,\text{cm}^2`, true],
    [String.raw`5`, String.raw`5 \text{ square units}`, true],
    [String.raw`6`, String.raw`5\text{ cm}^2`, false],
    [String.raw`50`, String.raw`50\text{ km/h}`, true],
    [String.raw`50`, String.raw`50 \text{ km}/\text{h}`, true],
    [String.raw`12.50`, String.raw`\$ 12.50`, true],
    [String.raw`12.5`, String.raw`\$12.50`, true],
    [String.raw`1250`, String.raw`\$12.50`, false],
    [String.raw`12.50`, String.raw`12.5\text{ dollars}`, true],
    [String.raw`\text{Monday}`, String.raw`Monday`, true],
    [String.raw`\text{Monday}`, String.raw`\text{Tuesday}`, false],
    [String.raw`\text{yes}`, String.raw`Yes`, true],
    [String.raw`1000`, String.raw`\$1,000`, true],
    [String.raw`\text{Yes}`, String.raw`yes`, true],
    [String.raw`\text{yes}`, String.raw`\text{no}`, false],
    [String.raw`12`, String.raw`12 \text{ apples}`, true],
    [String.raw`12`, String.raw`12\text{ inches}`, true],
    [String.raw`5`, String.raw`5\ \text{cm}`, true],
    [String.raw`5`, String.raw`5~\text{cm}`, true],
    [String.raw`5`, String.raw`5 \, \mathrm{cm}^3`, true],
    [String.raw`20`, String.raw`20 \text{ m/s}`, true],
    [String.raw`60`, String.raw`60 \text{ mph}`, true],
    [String.raw`5`, String.raw`\$ 5.00`, true],
    [String.raw`\$5`, String.raw`5 \text{ dollars}`, true],
    [String.raw`12`, String.raw`\$12.50`, false],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: fractions, mixed numbers and repeating decimals', () => {
  it.each<Row>([
    [String.raw`\frac{3}{4}`, String.raw`3/4`, true],
    [String.raw`\dfrac{3}{4}`, String.raw`3/4`, true],
    [String.raw`\frac{7}{2}`, String.raw`3\frac{1}{2}`, true],
    [String.raw`3\frac{1}{2}`, String.raw`\frac{7}{2}`, true],
    [String.raw`2\frac{1}{2}`, String.raw`2.5`, true],
    [String.raw`2\frac{1}{2}`, String.raw`5/2`, true],
    [String.raw`2\frac{1}{2}`, String.raw`1`, false],
    [String.raw`\frac12`, String.raw`0.5`, true],
    [String.raw`\frac12`, String.raw`\frac{1}{2}`, true],
    [String.raw`\frac{1}{3}`, String.raw`0.\dot{3}`, true],
    [String.raw`\frac{1}{3}`, String.raw`0.(3)`, true],
    [String.raw`32000`, String.raw`3.2 \cdot 10^4`, true],
    [String.raw`\frac{1}{2}`, String.raw`1/2`, true],
    [String.raw`-\frac{1}{2}`, String.raw`\frac{-1}{2}`, true],
    [String.raw`-\frac{1}{2}`, String.raw`\frac{1}{-2}`, true],
    [String.raw`-\frac{1}{2}`, String.raw`\frac{1}{2}`, false],
    [String.raw`\frac{a}{b}`, String.raw`a/b`, true],
    [String.raw`0.5`, String.raw`\frac{1}{2}`, true],
    [String.raw`50\%`, String.raw`\frac{1}{2}`, true],
    [String.raw`\frac{1}{2}`, String.raw`50\%`, true],
    [String.raw`-1.5`, String.raw`-\frac{3}{2}`, true],
    [String.raw`-1.5`, String.raw`\frac{-3}{2}`, true],
    [String.raw`\frac12`, String.raw`1/2`, true],
    [String.raw`3\frac12`, String.raw`3.5`, true],
    [String.raw`3\frac12`, String.raw`3 1/2`, true],
    [String.raw`1`, String.raw`2\cdot\frac{1}{2}`, true],
    [String.raw`2.5`, String.raw`2 \frac{1}{2}`, true],
    [String.raw`\frac{3}{4}`, String.raw`0.75`, true],
    [String.raw`\frac{3}{4}`, String.raw`0.7`, false],
    [String.raw`\frac{2}{3}`, String.raw`0.667`, false],
    [String.raw`\frac{2}{3}`, String.raw`0.6666666667`, true],
    [String.raw`-2.5`, String.raw`-2\frac{1}{2}`, true],
    [String.raw`-\frac{5}{2}`, String.raw`-2 \frac12`, true],
    [String.raw`\frac{1}{2}`, String.raw`\frac{2}{4}`, true],
    [String.raw`\frac{12}{5}`, String.raw`2.4`, true],
    [String.raw`\frac{1}{3}`, String.raw`0.\overline{3}`, true],
    [String.raw`\frac{7}{9}`, String.raw`0.\overline{7}`, true],
    [String.raw`\frac{1}{11}`, String.raw`0.\overline{09}`, true],
    [String.raw`\frac{1}{6}`, String.raw`0.1\overline{6}`, true],
    [String.raw`0.\overline{3}`, String.raw`\frac{1}{3}`, true],
    [String.raw`\frac{1}{3}`, String.raw`0.\overline{4}`, false],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: scientific notation, thousands and bases', () => {
  it.each<Row>([
    [String.raw`32000`, String.raw`3.2\times10^{4}`, true],
    [String.raw`32000`, String.raw`3.2e4`, true],
    [String.raw`3.2\times 10^4`, String.raw`32000`, true],
    [String.raw`32000`, String.raw`3.2\times10^{5}`, false],
    [String.raw`\log_2 8`, String.raw`3`, true],
    [String.raw`3`, String.raw`\log_2 8`, true],
    [String.raw`3`, String.raw`\log_2 9`, false],
    [String.raw`1000000`, String.raw`10^6`, true],
    [String.raw`1000000`, String.raw`1,000,000`, true],
    [String.raw`10^{-3}`, String.raw`0.001`, true],
    [String.raw`1.5\times10^{-3}`, String.raw`0.0015`, true],
    [String.raw`0.00032`, String.raw`3.2 \times 10^{-4}`, true],
    [String.raw`1000`, String.raw`1,000.00`, true],
    [String.raw`1011_2`, String.raw`11`, true],
    [String.raw`1234`, String.raw`1,234`, true],
    [String.raw`1234567`, String.raw`1,234,567`, true],
    [String.raw`12345`, String.raw`12,345`, true],
    [String.raw`\infty`, String.raw`10^{100}`, false],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: infinity, intervals, sets and ordered pairs', () => {
  it.each<Row>([
    [String.raw`\infty`, String.raw`\infty`, true],
    [String.raw`\infty`, String.raw`+\infty`, true],
    [String.raw`\infty`, String.raw`oo`, true],
    [String.raw`-\infty`, String.raw`\infty`, false],
    [String.raw`\infty`, String.raw`\text{infinity}`, true],
    [String.raw`(-\infty, 3)`, String.raw`(-\infty,3)`, true],
    [String.raw`(1, 2)`, String.raw`\{1, 2\}`, false],
    [String.raw`\{1,2\}`, String.raw`1, 2`, true],
    [String.raw`(1,2)`, String.raw`(1,2)`, true],
    [String.raw`[1,2]`, String.raw`[1, 2]`, true],
    [String.raw`(1,2)`, String.raw`1, 2`, true],
    [String.raw`\pm 2`, String.raw`-2, 2`, true],
    [String.raw`3, 5`, String.raw`3 \text{ and } 5`, true],
    [String.raw`3, 5`, String.raw`5 \text{ and } 3`, true],
    [String.raw`3, 5`, String.raw`3`, false],
    [String.raw`3`, String.raw`3, 5`, false],
    [String.raw`3+4i`, String.raw`(3,4)`, false],
    [String.raw`\sqrt[3]{2}`, String.raw`2^{1/3}`, true],
    [String.raw`(2, 3)`, String.raw`(2,3)`, true],
    [String.raw`(2, 3)`, String.raw`x=2, y=3`, true],
    [String.raw`(2, 3)`, String.raw`(3, 2)`, false],
    [String.raw`x=2, y=3`, String.raw`(2,3)`, true],
    [String.raw`\{2, 3\}`, String.raw`\{3, 2\}`, true],
    [String.raw`\{2, 3\}`, String.raw`[2, 3]`, false],
    [String.raw`[2, 3]`, String.raw`2 \le x \le 3`, true],
    [String.raw`(2, 3]`, String.raw`2 < x \le 3`, true],
    [String.raw`(2, 3]`, String.raw`2 \le x \le 3`, false],
    [String.raw`x=1 \text{ or } x=2`, String.raw`1, 2`, true],
    [String.raw`1, 2`, String.raw`x=1 \text{ or } x=2`, true],
    [String.raw`1, 2`, String.raw`1`, false],
    [String.raw`\{1, 2, 3\}`, String.raw`1, 2, 3`, true],
    [String.raw`x \ge 2`, String.raw`[2, \infty)`, true],
    [String.raw`(-\infty, \infty)`, String.raw`\mathbb{R}`, true],
    [String.raw`\mathbb{R}`, String.raw`(-\infty, \infty)`, true],
    [String.raw`(-\infty,\infty)`, String.raw`\text{all real numbers}`, true],
    [String.raw`\langle 1, 2 \rangle`, String.raw`(1,2)`, true],
    [String.raw`|x| > 1`, String.raw`(-\infty, -1) \cup (1, \infty)`, true],
    [String.raw`-3, 2`, String.raw`x = 2 \text{ or } x = -3`, true],
    [String.raw`[1,3]`, String.raw`1 \le x \le 3`, true],
    [String.raw`(3,4)`, String.raw`4, 3`, false],
    [String.raw`(3,4)`, String.raw`3, 4`, true],
    [String.raw`3, 4`, String.raw`(4, 3)`, true],
    [String.raw`(1,2)`, String.raw`(1,2,3)`, false],
    [String.raw`\mathbb{R} \setminus \{2\}`, String.raw`(-\infty, 2) \cup (2, \infty)`, true],
    [String.raw`(-\infty, 2) \cup (2, \infty)`, String.raw`x \ne 2`, true],
    [String.raw`\mathbb{R}`, String.raw`\text{all real numbers}`, true],
    [String.raw`\mathbb{R}`, String.raw`(-\infty, 0) \cup (0, \infty)`, false],
    [String.raw`[0, 5] \cap [3, 8]`, String.raw`[3, 5]`, true],
    [String.raw`\emptyset`, String.raw`\text{no solution}`, true],
    [String.raw`\text{no solution}`, String.raw`\emptyset`, true],
    [String.raw`\text{no real solutions}`, String.raw`\{\}`, true],
    [String.raw`\emptyset`, String.raw`0`, false],
    [String.raw`(-\infty, 1) \cup (1, \infty)`, String.raw`\mathbb{R}\backslash\{1\}`, true],
    [String.raw`(-\infty, 1) \cup (1, \infty)`, String.raw`\mathbb{R}\setminus\{2\}`, false],
    [String.raw`x \in [1, 2]`, String.raw`[1,2]`, true],
    [String.raw`\infty`, String.raw`∞`, true],
    [String.raw`-\infty`, String.raw`-∞`, true],
    [String.raw`\infty`, String.raw`-\infty`, false],
    [String.raw`(1, 2)`, String.raw`[1, 2]`, false],
    [String.raw`\{1, 2\}`, String.raw`\{1, 2, 2\}`, true],
    [String.raw`\{1, 2\}`, String.raw`\{1, 2, 3\}`, false],
    [String.raw`1, 2`, String.raw`1, 2, 3`, false],
    [String.raw`1, 2, 3`, String.raw`1, 2`, false],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: matrices and vectors', () => {
  it.each<Row>([
    [String.raw`\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}`, String.raw`\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}`, true],
    [String.raw`\begin{pmatrix} 1 \\ 2 \end{pmatrix}`, String.raw`(1, 2)`, true],
    [String.raw`\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}`, String.raw`\begin{pmatrix} 1 & 3 \\ 2 & 4 \end{pmatrix}`, false],
    [String.raw`\begin{pmatrix} 1 \\ 2 \end{pmatrix}`, String.raw`(2, 1)`, false],
    [String.raw`\begin{pmatrix} 1 \\ 2 \end{pmatrix}`, String.raw`\langle 1,2 \rangle`, true],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: plus-minus and several answers', () => {
  it.each<Row>([
    [String.raw`\pm 2`, String.raw`2, -2`, true],
    [String.raw`2, -2`, String.raw`\pm 2`, true],
    [String.raw`\pm 2`, String.raw`2`, false],
    [String.raw`1 \pm \sqrt{2}`, String.raw`1+\sqrt{2}, 1-\sqrt{2}`, true],
    [String.raw`1 \pm \sqrt{2}`, String.raw`1+\sqrt{2}`, false],
    [String.raw`x=1, x=2`, String.raw`x = 2, x = 1`, true],
    [String.raw`1000`, String.raw`1{,}000`, true],
    [String.raw`3, -3`, String.raw`x = \pm 3`, true],
    [String.raw`x = 3 \text{ or } x = -3`, String.raw`\pm 3`, true],
    [String.raw`3`, String.raw`\lfloor 3.7 \rfloor`, true],
    [String.raw`2, -2`, String.raw`\sqrt{4}`, false],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: equations', () => {
  it.each<Row>([
    [String.raw`y = 2x + 1`, String.raw`2x - y + 1 = 0`, true],
    [String.raw`y = 2x + 1`, String.raw`y = 2x - 1`, false],
    [String.raw`y = 2x + 1`, String.raw`2x + 1`, true],
    [String.raw`x = 2`, String.raw`x = 2`, true],
    [String.raw`-2x+3`, String.raw`y = -2x + 3`, true],
    [String.raw`\frac{x^2}{4} + \frac{y^2}{3} = 1`, String.raw`3x^2 + 4y^2 = 12`, true],
    [String.raw`y = 2x+1`, String.raw`y - 1 = 2x`, true],
    [String.raw`y = 2x+1`, String.raw`2y = 4x + 2`, true],
    [String.raw`y = 2x+1`, String.raw`x = \frac{y-1}{2}`, true],
    [String.raw`y = 2x+1`, String.raw`y = 2x + 2`, false],
    [String.raw`y = 2x+1`, String.raw`y = -2x - 1`, false],
    [String.raw`f(x) = 2x+1`, String.raw`2x+1`, true],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: complex numbers', () => {
  it.each<Row>([
    [String.raw`3+4i`, String.raw`4i+3`, true],
    [String.raw`3+4i`, String.raw`3-4i`, false],
    [String.raw`-1+2i`, String.raw`2i-1`, true],
    [String.raw`0.5+0.5i`, String.raw`\frac{1+i}{2}`, true],
    [String.raw`\frac{1+i}{2}`, String.raw`0.5+0.5i`, true],
    [String.raw`i`, String.raw`\sqrt{-1}`, true],
    [String.raw`3+4i`, String.raw`4+3i`, false],
    [String.raw`3+4i`, String.raw`3+4\mathrm{i}`, true],
    [String.raw`i`, String.raw`-i`, false],
    [String.raw`\frac{1}{i}`, String.raw`-i`, true],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: degrees and trigonometry', () => {
  it.each<Row>([
    [String.raw`30^\circ`, String.raw`30`, true],
    [String.raw`30`, String.raw`30^\circ`, true],
    [String.raw`30^\circ`, String.raw`30°`, true],
    [String.raw`30^\circ`, String.raw`30 degrees`, true],
    [String.raw`30^\circ`, String.raw`60`, false],
    [String.raw`\frac{1}{2}`, String.raw`\sin(\pi/6)`, true],
    [String.raw`\frac{1}{2}`, String.raw`\sin\frac{\pi}{6}`, true],
    [String.raw`\frac{\sqrt{3}}{2}`, String.raw`\cos 30^\circ`, true],
    [String.raw`1`, String.raw`\tan 45^\circ`, true],
    [String.raw`\pi`, String.raw`3.14159265`, true],
    [String.raw`\frac{1}{2}`, String.raw`\sin 30^\circ`, true],
    [String.raw`\frac{1}{2}`, String.raw`\sin^2(\pi/4)`, true],
    [String.raw`\sin x`, String.raw`\cos x`, false],
    [String.raw`30^\circ`, String.raw`\frac{\pi}{6}`, true],
    [String.raw`\frac{\sqrt{3}}{2}`, String.raw`\cos(\pi/6)`, true],
    [String.raw`\frac{1}{2}`, String.raw`\cos(\pi/6)`, false],
    [String.raw`e^{i\pi}`, String.raw`-1`, true],
    [String.raw`3.14`, String.raw`\pi`, false],
    [String.raw`60^\circ`, String.raw`\frac{\pi}{3}`, true],
    [String.raw`1`, String.raw`\tan(\pi/4)`, true],
    [String.raw`\frac{1}{2}`, String.raw`\cos\frac{\pi}{3}`, true],
    [String.raw`\frac{\pi}{4}`, String.raw`\arctan(1)`, true],
    [String.raw`\frac{\pi}{2}`, String.raw`90`, false],
    [String.raw`\frac{\pi}{6}`, String.raw`30^\circ`, true],
    [String.raw`\frac{\pi}{6}`, String.raw`30`, false],
    [String.raw`30`, String.raw`\frac{\pi}{6}`, false],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: logarithms, factorials and binomials', () => {
  it.each<Row>([
    [String.raw`2`, String.raw`\log_{3} 9`, true],
    [String.raw`120`, String.raw`5!`, true],
    [String.raw`5!`, String.raw`120`, true],
    [String.raw`10`, String.raw`\binom{5}{2}`, true],
    [String.raw`10`, String.raw`\binom{5}{3}`, true],
    [String.raw`\ln 2`, String.raw`\log 2`, true],
    [String.raw`\log_{10} 100`, String.raw`2`, true],
    [String.raw`\log 100`, String.raw`2`, false],
    [String.raw`720`, String.raw`6!`, true],
    [String.raw`120`, String.raw`\binom{10}{3}`, true],
    [String.raw`120`, String.raw`{10 \choose 3}`, true],
    [String.raw`2`, String.raw`\ln e^2`, true],
    [String.raw`\frac{n(n-1)}{2}`, String.raw`\binom{n}{2}`, true],
    [String.raw`\binom{n}{2}`, String.raw`\frac{n^2-n}{2}`, true],
    [String.raw`\binom{n}{3}`, String.raw`\frac{n(n-1)}{2}`, false],
    [String.raw`n!`, String.raw`n(n-1)!`, true],
    [String.raw`0!`, String.raw`1`, true],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: percent (a gold p% also reads as p; a bare gold never as its own percent)', () => {
  it.each<Row>([
    [String.raw`0.5`, String.raw`50\%`, true],
    [String.raw`50\%`, String.raw`0.5`, true],
    [String.raw`50\%`, String.raw`50`, true],
    [String.raw`50\%`, String.raw`0.5\%`, false],
    [String.raw`50`, String.raw`50\%`, false],
    [String.raw`5\%`, String.raw`5`, true],
    [String.raw`5\%`, String.raw`0.05`, true],
    [String.raw`5\%`, String.raw`0.5`, false],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: other expressions', () => {
  it.each<Row>([
    [String.raw`\frac{\sqrt{2}}{2}`, String.raw`\frac{1}{\sqrt{2}}`, true],
    [String.raw`\frac{x+1}{2}`, String.raw`(x+1)/2`, true],
    [String.raw`\frac{x+1}{2}`, String.raw`x+1/2`, false],
    [String.raw`1/2x`, String.raw`\frac{x}{2}`, true],
    [String.raw`2\sqrt{3}`, String.raw`\sqrt{12}`, true],
    [String.raw`2\sqrt{3}`, String.raw`\sqrt{6}`, false],
    [String.raw`\frac{1}{\sqrt{3}}`, String.raw`\frac{\sqrt{3}}{3}`, true],
    [String.raw`x^2+2x+1`, String.raw`(x+1)^2`, true],
    [String.raw`x^2+2x+1`, String.raw`(x-1)^2`, false],
    [String.raw`\frac{1}{x}`, String.raw`x^{-1}`, true],
    [String.raw`2`, String.raw`2.0`, true],
    [String.raw`2`, String.raw`2.00001`, false],
    [String.raw`A`, String.raw`\text{(A)}`, true],
    [String.raw`\text{(A)}`, String.raw`A`, true],
    [String.raw`A`, String.raw`\textbf{(A)}`, true],
    [String.raw`A`, String.raw`(A)`, true],
    [String.raw`A`, String.raw`B`, false],
    [String.raw`\sqrt{50}`, String.raw`5\sqrt{2}`, true],
    [String.raw`2^{10}`, String.raw`1024`, true],
    [String.raw`C`, String.raw`\textbf{(C)}`, true],
    [String.raw`\frac{1}{2}\sqrt{3}`, String.raw`\dfrac{\sqrt{3}}{2}`, true],
    [String.raw`1+\sqrt{8}`, String.raw`2\sqrt{2}+1`, true],
    [String.raw`3`, String.raw`|-3|`, true],
    [String.raw`x^2`, String.raw`2x`, false],
    [String.raw`\sqrt{2}`, String.raw`1.41`, false],
    [String.raw`e`, String.raw`2.718`, false],
    [String.raw`\sqrt{2}`, String.raw`2^{0.5}`, true],
    [String.raw`\sqrt{2}`, String.raw`2^{1/2}`, true],
    [String.raw`x^2`, String.raw`x^{2.0}`, true],
    [String.raw`2`, String.raw`\sqrt{4}`, true],
    [String.raw`-2`, String.raw`\sqrt{4}`, false],
  ])('%s vs %s → %s', (gold, answer, expected) => expect(rewarded(`\\boxed{${answer}}`, gold)).toBe(expected));
});

describe('math answers: whole responses', () => {
  it.each<Row>([
    [String.raw`12`, String.raw`The answer is 12 dollars.`, true],
    [String.raw`12`, String.raw`So she pays $12.`, true],
    [String.raw`12`, String.raw`So she pays \$12.`, true],
    [String.raw`12.50`, String.raw`The total is \$12.50.`, true],
    [String.raw`12.5`, String.raw`The total is $\$12.50$.`, true],
    [String.raw`5`, String.raw`The area is $5\text{ cm}^2$.`, true],
    [String.raw`x \le 2 \text{ or } x > 3`, String.raw`The solution is $x \le 2$ or $x > 3$.`, true],
    [String.raw`$x \le 2$ or $x > 3$`, String.raw`Thus \boxed{(-\infty, 2] \cup (3, \infty)}`, true],
    [String.raw`$x \le 2$ or $x > 3$`, String.raw`Thus \boxed{x \le 2} or \boxed{x > 3}`, true],
    [String.raw`$x \le 2$ or $x > 3$`, String.raw`Thus \boxed{(-\infty, 2] \cup [3, \infty)}`, false],
    [String.raw`(-\infty,2]\cup(3,\infty)`, String.raw`The solution is $x \le 2$ or $x > 3$.`, true],
    [String.raw`3, 5`, String.raw`The roots are $x = 3$ and $x = 5$.`, true],
    [String.raw`3, 5`, String.raw`The roots are \boxed{3} and \boxed{5}.`, true],
    [String.raw`\frac{1}{3}`, String.raw`The answer is \boxed{0.\overline{3}}.`, true],
    [String.raw`0`, String.raw`The answer is \boxed{0.\overline{3}}.`, false],
    [String.raw`30^\circ`, String.raw`The angle is \boxed{30^{\circ}}.`, true],
    [String.raw`y = 2x+1`, String.raw`The line is \boxed{2x - y + 1 = 0}.`, true],
    [String.raw`y = 2x+1`, String.raw`The line is \boxed{y=2x+1}.`, true],
    [String.raw`\text{(B)}`, String.raw`The answer is \boxed{B}.`, true],
    [String.raw`B`, String.raw`The answer is \boxed{\text{(B)}}.`, true],
    [String.raw`B`, String.raw`The answer is \boxed{(B)}.`, true],
    [String.raw`B`, String.raw`The answer is \boxed{C}.`, false],
    [String.raw`5`, String.raw`The answer is $\boxed{5}$ cm.`, true],
    [String.raw`2, 3`, String.raw`Thus the solutions are \boxed{2} and \boxed{3}.`, true],
    [String.raw`2, 3`, String.raw`The solutions are $x=2$ and $x=3$.`, true],
    [String.raw`2, 3`, String.raw`So \boxed{x=2 \text{ or } x=3}.`, true],
    [String.raw`12`, String.raw`Final Answer: 12`, true],
    [String.raw`12`, String.raw`**Answer:** 12`, true],
    [String.raw`12`, String.raw`**Final Answer**

\boxed{12}`, true],
    [String.raw`12.50`, String.raw`She pays \boxed{\$12.50}.`, true],
    [String.raw`12.50`, String.raw`She pays \boxed{12.50 \text{ dollars}}.`, true],
    [String.raw`12 dollars`, String.raw`She pays \boxed{12}.`, true],
    [String.raw`5 cm^2`, String.raw`The area is \boxed{5}.`, true],
    [String.raw`5 \text{ cm}^2`, String.raw`The area is \boxed{5\text{ cm}^2}.`, true],
    [String.raw`x = 2 or x = 3`, String.raw`so \boxed{3, 2}`, true],
    [String.raw`2 and 3`, String.raw`so \boxed{2, 3}`, true],
    [String.raw`3/4`, String.raw`so \boxed{\frac34}`, true],
    [String.raw`\frac{3}{4}`, String.raw`so \boxed{0.75}`, true],
    [String.raw`\frac{3}{4}`, String.raw`so \boxed{75\%}`, true],
    [String.raw`75\%`, String.raw`so \boxed{\frac34}`, true],
    [String.raw`75`, String.raw`so \boxed{75\%}`, false],
    [String.raw`\frac{1}{2}`, String.raw`The probability is $\frac{1}{2}$.`, true],
    [String.raw`\frac{1}{2}`, String.raw`The probability is 1/2.`, true],
    [String.raw`\frac{1}{2}`, String.raw`The probability is 0.5.`, true],
    [String.raw`\frac{1}{2}`, String.raw`The probability is 50%.`, true],
    [String.raw`9`, String.raw`<think>it is \boxed{8}</think> The answer is \boxed{9}.`, true],
    [String.raw`9`, String.raw`The answer is \boxed{9}. Wait, actually \boxed{8}.`, false],
    [String.raw`(2, 3)`, String.raw`The point is $(2, 3)$.`, true],
    [String.raw`(2, 3)`, String.raw`The point is \boxed{(2,3)}.`, true],
    [String.raw`x^2 + 2x + 1`, String.raw`\boxed{(x+1)^2}`, true],
    [String.raw`\frac{\sqrt{2}}{2}`, String.raw`\boxed{\frac{1}{\sqrt 2}}`, true],
    [String.raw`10`, String.raw`We have $5+5=10$.`, true],
    [String.raw`-2`, String.raw`The answer is $\boxed{-2}$.`, true],
    [String.raw`-2`, String.raw`The answer is $\boxed{2}$.`, false],
    [String.raw`\$1,234.56`, String.raw`\boxed{1234.56}`, true],
    [String.raw`3.2 \times 10^4`, String.raw`\boxed{32000}`, true],
    [String.raw`3.2 \times 10^4`, String.raw`so it is 3.2e4`, true],
    [String.raw`1.5`, String.raw`So it takes \boxed{1\frac{1}{2}} hours.`, true],
    [String.raw`1.5`, String.raw`So it takes \boxed{1 \frac{1}{2}\text{ hours}}.`, true],
  ])('%s vs %j → %s', (gold, response, expected) => expect(rewarded(response, gold)).toBe(expected));
});
