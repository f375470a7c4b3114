/**
 * Prefixes and suffixes that carry meaning in science answers: an edit inside one of them turns a
 * word into another word (`intracellular` → `intercellular`, `perchlorate` → `perchlorite`,
 * `decimeter` → `decameter`, `cyclohexane` → `cyclohexene`), never into a misspelling the grader may
 * forgive. Each is one edit apart from a sibling, which is why a whole-word similarity cannot tell
 * them from a typo on long words. Lower case; the longest match counts.
 */
export const MEANINGFUL_PREFIXES: readonly string[] = [
  // SI and number prefixes
  'yocto', 'zepto', 'atto', 'femto', 'pico', 'nano', 'micro', 'milli', 'centi', 'deci', 'deca', 'deka',
  'hecto', 'kilo', 'mega', 'giga', 'tera', 'peta', 'exa', 'zetta', 'yotta', 'kibi', 'mebi', 'gibi',
  'mono', 'uni', 'bi', 'di', 'tri', 'tetra', 'penta', 'hexa', 'hepta', 'octa', 'nona', 'poly', 'multi', 'hemi', 'semi',
  // opposites
  'hyper', 'hypo', 'endo', 'exo', 'ecto', 'intra', 'inter', 'extra', 'infra', 'ultra', 'supra', 'super', 'sub',
  'homo', 'hetero', 'iso', 'allo', 'pre', 'post', 'pro', 'anti', 'ana', 'cata', 'ortho', 'meta', 'para',
  'cis', 'trans', 'dextro', 'levo', 'macro', 'ab', 'ad', 'af', 'ef', 'epi',
  // negation
  'un', 'in', 'im', 'ir', 'il', 'non', 'dis', 'de',
];

export const MEANINGFUL_SUFFIXES: readonly string[] = [
  // inorganic anions and organic families
  'ate', 'ite', 'ide', 'ane', 'ene', 'yne', 'ine', 'ol', 'al', 'one', 'ose', 'ase', 'ium', 'ic', 'ous',
  // -philic / -phobic, -trophic, -genic …: one letter apart from nothing, but cheap to keep exact
  'philic', 'phobic',
];

function longestPrefix(word: string): number {
  let best = 0;
  for (const p of MEANINGFUL_PREFIXES) if (p.length > best && p.length < word.length && word.startsWith(p)) best = p.length;
  return best;
}

function longestSuffix(word: string): number {
  let best = 0;
  for (const s of MEANINGFUL_SUFFIXES) if (s.length > best && s.length < word.length && word.endsWith(s)) best = s.length;
  return best;
}

/**
 * The meaningful affix an edit between two different words touches, or null. The edit lies between
 * the words' common start and common end; it touches a prefix that starts either word when it begins
 * inside that prefix, and a suffix that ends either word when it reaches into it.
 */
export function touchedAffix(a: string, b: string): string | null {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  for (const word of [a, b]) {
    const prefix = longestPrefix(word);
    if (start < prefix) return word.slice(0, prefix) + '-';
    const suffix = longestSuffix(word);
    if (end < suffix) return '-' + word.slice(word.length - suffix);
  }
  return null;
}
