/**
 * Language identification for `language:response_language` and the English-case checks.
 *
 * The references call `langdetect`, a randomized character-n-gram classifier with profiles that
 * are not part of this project; it is also unseeded there, so its verdicts are not reproducible.
 * This is a deterministic identifier instead: the script with the most letters decides, scripts
 * shared by several languages are split by letters only one of them uses, and Latin-script
 * languages by counts of their most frequent function words. It answers an ISO 639-1 code as
 * langdetect spells it, "unknown" when no language stands out (a name list, "YES"), and null when
 * the text has no letters at all (langdetect's "No features in text", which the references count as
 * a pass).
 */

type Script =
  | 'latin'
  | 'cyrillic'
  | 'arabic'
  | 'devanagari'
  | 'bengali'
  | 'gurmukhi'
  | 'gujarati'
  | 'tamil'
  | 'telugu'
  | 'kannada'
  | 'malayalam'
  | 'thai'
  | 'hangul'
  | 'kana'
  | 'han'
  | 'greek'
  | 'hebrew'
  | 'other';

const SCRIPTS: Array<[Script, RegExp]> = [
  ['latin', /\p{Script=Latin}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
  ['bengali', /\p{Script=Bengali}/u],
  ['gurmukhi', /\p{Script=Gurmukhi}/u],
  ['gujarati', /\p{Script=Gujarati}/u],
  ['tamil', /\p{Script=Tamil}/u],
  ['telugu', /\p{Script=Telugu}/u],
  ['kannada', /\p{Script=Kannada}/u],
  ['malayalam', /\p{Script=Malayalam}/u],
  ['thai', /\p{Script=Thai}/u],
  ['hangul', /\p{Script=Hangul}/u],
  ['kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['han', /\p{Script=Han}/u],
  ['greek', /\p{Script=Greek}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
];

const SINGLE_LANGUAGE: Partial<Record<Script, string>> = {
  bengali: 'bn',
  gurmukhi: 'pa',
  gujarati: 'gu',
  tamil: 'ta',
  telugu: 'te',
  kannada: 'kn',
  malayalam: 'ml',
  thai: 'th',
  hangul: 'ko',
  kana: 'ja',
  greek: 'el',
  hebrew: 'he',
};

const URL = /https?:\/\/[-_.?&~;+=/#0-9A-Za-z]{1,2076}/g;
const EMAIL = /[-_.0-9A-Za-z]{1,64}@[-_0-9A-Za-z]{1,255}[-_.0-9A-Za-z]{1,255}/g;
const LETTER = /[\p{L}\p{M}]/u;

const words = (list: string): ReadonlySet<string> => new Set(list.split(' '));

/** The most frequent function words of each Latin-script language, as everyday usage has them. */
const LATIN_WORDS: Record<string, ReadonlySet<string>> = {
  en: words('the and of to in is that it for you was with on as are be this have not but they at by from or an his her we which there their what all were when can if will would has been more one about so do no who am my me our your how why where just like than then them some very also only its into out up over too'),
  de: words('der die und das ist nicht ich zu den sie es mit ein eine sich auf dem des für von auch wir im aus bei wie oder wenn nur noch werden wird sind aber hat haben kann einen einer uns'),
  fr: words('le la les et des est un une que qui dans pour pas sur au du ne ce il elle sont avec se plus par nous vous mais ou son sa leurs été être aux cette'),
  es: words('el la los las y que de en un una es por con para no se su al lo como más pero sus le ya o este sí porque esta entre cuando muy sin sobre también'),
  it: words('il la le di che è e un una per non sono del della in con si da al lo gli ma come anche dei delle nel nella questo più sul sulla alla'),
  pt: words('o os que e do da em um uma para é com não no na se por mais as dos das como mas ao ele ela seu sua ou são foi também pelo pela isso'),
  nl: words('de het een en van is dat in op te zijn niet met voor er die ook aan als bij door maar om nog wel dan wat naar ze hij uit'),
  fi: words('ja on ei se että hän oli ovat mutta kun tai jos myös niin kuin mitä ole sen hänen tämä joka voi vain sinun minä me te he ovat olla'),
  sv: words('och att det som en på är av för med till den har de inte om ett var jag men så från vi kan eller'),
  da: words('og at det som en på er af for med til den har de ikke om et var jeg men så fra vi kan eller'),
  no: words('og at det som en på er av for med til den har de ikke om et var jeg men så fra vi kan eller ikkje'),
  pl: words('i w nie na się z że do to jest jak o co ale po tak za od są dla przez jego być może już tylko'),
  tr: words('ve bir bu da de için ile çok ne gibi daha olan ama o en var mı mi değil kadar sonra ancak her şey'),
  vi: words('và của là có không những một các cho được người này với trong đã để từ khi thì cũng như về đến nhưng sẽ rất'),
  sw: words('na ya wa kwa ni za katika la cha kuwa hii huo au lakini pia kama sana wake yake vya hivyo ili nini'),
  id: words('dan yang di ini itu dengan untuk dari tidak ada dalam akan pada juga ke atau oleh saya kami mereka bisa'),
  ro: words('și în de la care este un o cu nu pe din mai pentru sunt ca se au fost dar sau'),
  cs: words('a v je se na že to s z do jako pro ale jsou jsem by o tak jeho které který'),
  hu: words('a az és hogy nem is egy van meg de ez csak már mint ki volt azt el'),
  ca: words('el la els les i de que en un una és per amb no del als al es com però més'),
  tl: words('ang ng sa na at mga ay ko hindi siya ito ka mo kung para lang'),
};

/** Letters of the Arabic script that only one of Arabic, Persian and Urdu writes. */
const ARABIC_MARKERS: Record<string, RegExp> = {
  ur: /[\u0679\u0688\u0691\u06ba\u06be\u06c1\u06d2\u06d3]/gu,
  fa: /[\u067e\u0686\u0698\u06af\u06a9\u06cc]/gu,
  ar: /[\u0629\u064a\u0643\u0649\u0623\u0625]/gu,
};

const CYRILLIC_MARKERS: Record<string, RegExp> = {
  ru: /[ыэё]/gu,
  uk: /[іїєґ]/gu,
  mk: /[ѓќѕ]/gu,
  sr: /[ђћ]/gu,
  bg: /[ъ]/gu,
};

const DEVANAGARI_WORDS: Record<string, ReadonlySet<string>> = {
  hi: words('है हैं का की के में और से को यह नहीं था थे थी भी पर लिए एक हो कर इस वह जो तो ही'),
  mr: words('आहे आहेत आणि या हे व ते की होते करा मी नाही तर त्या आपण झाले होता ही हा'),
  ne: words('छ छन् र को मा हो पनि लाई गर्नुहोस् भएको थियो गर्न यो त्यो हुन्छ तथा गरेको छैन'),
};

function count(text: string, re: RegExp): number {
  re.lastIndex = 0;
  return text.match(re)?.length ?? 0;
}

/** The key with the strictly highest score, or "unknown" on a tie or when every score is 0. */
function best(keys: readonly string[], scores: readonly number[]): string {
  let top = 'unknown';
  let topScore = 0;
  let tie = false;
  for (let i = 0; i < keys.length; i++) {
    const score = scores[i] as number;
    if (score > topScore) {
      top = keys[i] as string;
      topScore = score;
      tie = false;
    } else if (score === topScore && score > 0) tie = true;
  }
  return tie ? 'unknown' : top;
}

interface WordIndex {
  keys: readonly string[];
  /** Word → the indexes in `keys` of the languages that list it. */
  byWord: ReadonlyMap<string, readonly number[]>;
}

const indexes = new WeakMap<Record<string, ReadonlySet<string>>, WordIndex>();

function index(lists: Record<string, ReadonlySet<string>>): WordIndex {
  let found = indexes.get(lists);
  if (!found) {
    const keys = Object.keys(lists);
    const byWord = new Map<string, number[]>();
    keys.forEach((key, i) => {
      for (const w of lists[key] ?? []) byWord.set(w, [...(byWord.get(w) ?? []), i]);
    });
    found = { keys, byWord };
    indexes.set(lists, found);
  }
  return found;
}

/**
 * Scores each language by the listed words among the text's runs of letters and marks
 * (`[\p{L}\p{M}]+` of the lowercased text). Words of two letters or more only: single letters
 * ("a", "i", "s" of "galway's") say little. A hand scan: a regex iterator per word was most of the
 * identifier's time.
 */
function byWords(text: string, lists: Record<string, ReadonlySet<string>>): string {
  const { keys, byWord } = index(lists);
  const scores = keys.map(() => 0);
  const lower = text.toLowerCase();
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const width = i < lower.length ? letterWidth(lower, i) : 0;
    if (width > 0) {
      if (start < 0) start = i;
      i += width - 1;
      continue;
    }
    if (start >= 0 && i - start > 1) {
      const languages = byWord.get(lower.slice(start, i));
      if (languages) for (const k of languages) scores[k] = (scores[k] ?? 0) + 1;
    }
    start = -1;
  }
  return best(keys, scores);
}

function byMarkers(text: string, markers: Record<string, RegExp>, fallback: string): string {
  const keys = Object.keys(markers);
  const found = best(
    keys,
    keys.map((key) => count(text, markers[key] as RegExp)),
  );
  return found === 'unknown' ? fallback : found;
}

const SCRIPT_NAMES: readonly Script[] = [...SCRIPTS.map(([name]) => name), 'other'];
const NOT_LETTER = -1;

/**
 * The script of a code point as an index into SCRIPT_NAMES, or NOT_LETTER when it is neither a
 * letter nor a mark. Tabled by code point (a Unicode property lookup per character was most of
 * the identifier's time); the table is Unicode's, so it is the same for every input. Entries hold
 * the answer + 2, so that 0 means "not looked up yet".
 */
const bmpScripts = new Uint8Array(0x10000);
const astralScripts = new Map<number, number>();

function scriptIndex(codePoint: number): number {
  const known = codePoint < 0x10000 ? (bmpScripts[codePoint] ?? 0) : (astralScripts.get(codePoint) ?? 0);
  if (known !== 0) return known - 2;
  const ch = String.fromCodePoint(codePoint);
  const found = LETTER.test(ch) ? SCRIPT_NAMES.indexOf(SCRIPTS.find(([, re]) => re.test(ch))?.[0] ?? 'other') : NOT_LETTER;
  if (codePoint < 0x10000) bmpScripts[codePoint] = found + 2;
  else astralScripts.set(codePoint, found + 2);
  return found;
}

/** The UTF-16 length of the letter or mark at `i`, or 0 when there is none there. */
function letterWidth(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 0x80) return (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a ? 1 : 0;
  const codePoint = text.codePointAt(i) as number;
  if (scriptIndex(codePoint) === NOT_LETTER) return 0;
  return codePoint > 0xffff ? 2 : 1;
}

export function detectLanguage(raw: string): string | null {
  // Both patterns need their literal ("http", "@"); most texts have neither.
  let text = raw.includes('http') ? raw.replace(URL, ' ') : raw;
  if (text.includes('@')) text = text.replace(EMAIL, ' ');
  // Insertion order decides ties between scripts: the first script seen wins.
  const letters = new Map<Script, number>();
  const counts = SCRIPT_NAMES.map(() => 0);
  const seen: Script[] = [];
  let ascii = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      if ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) ascii++;
      continue;
    }
    const codePoint = text.codePointAt(i) as number;
    if (codePoint > 0xffff) i++;
    const k = scriptIndex(codePoint);
    if (k === NOT_LETTER) continue;
    if (counts[k] === 0) seen.push(SCRIPT_NAMES[k] as Script);
    counts[k] = (counts[k] ?? 0) + 1;
  }
  for (const name of seen) letters.set(name, counts[SCRIPT_NAMES.indexOf(name)] as number);
  if (ascii > 0) letters.set('latin', (letters.get('latin') ?? 0) + ascii);
  if (letters.size === 0) return null;
  let script: Script = 'other';
  let most = 0;
  for (const [s, n] of letters) {
    if (n > most) {
      script = s;
      most = n;
    }
  }
  if (script === 'han') return (letters.get('kana') ?? 0) > 0 ? 'ja' : 'zh-cn';
  const single = SINGLE_LANGUAGE[script];
  if (single) return single;
  switch (script) {
    case 'latin':
      return byWords(text, LATIN_WORDS);
    case 'cyrillic':
      return byMarkers(text.toLowerCase(), CYRILLIC_MARKERS, 'ru');
    case 'arabic':
      return byMarkers(text, ARABIC_MARKERS, 'ar');
    case 'devanagari':
      return byWords(text, DEVANAGARI_WORDS);
    default:
      return 'unknown';
  }
}
