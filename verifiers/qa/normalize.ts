/** LaTeX wrappers whose content is the answer: `\text{…}`, `\mathrm{…}`, `\textbf{…}`, … */
const WRAPPERS = /\\(?:text|textbf|textit|mathrm|mathbf|mathit|operatorname|emph)\s*\{([^{}]*)\}/g;

// Colour, which models use to highlight the answer they give: the content is the answer, the
// colour (and its optional model, `[rgb]`) is dropped. No two parts of a pattern can match the same
// characters (a space is taken by one \s* only): answers can be long, and a pattern that could split
// a run of spaces two ways would try every split before failing.
const MODEL = String.raw`(?:\[[^\]\\]*\]\s*)?`; // a model holds no backslash: `\color[\color[…` is read once
const ARG = String.raw`\{[^{}]*\}`;
/** `\textcolor{red}{C}`, `\colorbox{yellow}{C}`, `\fcolorbox{red}{white}{C}`. */
const COLOUR_WRAPPERS = new RegExp(
  String.raw`\\(?:textcolor|colorbox)\s*${MODEL}${ARG}\s*\{([^{}]*)\}|\\fcolorbox\s*${MODEL}${ARG}\s*${MODEL}${ARG}\s*\{([^{}]*)\}`,
  'g',
);
/** `{\color{red} C}`: the switch and the group it colours. */
const COLOUR_GROUP = new RegExp(String.raw`\{\s*\\color\s*${MODEL}${ARG}([^{}]*)\}`, 'g');
/** `\color{red} C`: the switch alone. */
const COLOUR_SWITCH = new RegExp(String.raw`\\color\s*${MODEL}${ARG}`, 'g');

/** Removes LaTeX wrappers (colour included) and math delimiters, keeping their content. */
export function stripLatex(text: string): string {
  let out = text;
  for (let i = 0; i < 4; i++) {
    const next = out
      .replace(WRAPPERS, '$1')
      .replace(COLOUR_WRAPPERS, (_all, inner?: string, framed?: string) => inner ?? framed ?? '')
      .replace(COLOUR_GROUP, '$1')
      .replace(COLOUR_SWITCH, '');
    if (next === out) break;
    out = next;
  }
  return out
    .replace(/\\[()[\]]/g, ' ')
    .replace(/\$/g, ' ')
    .replace(/\\[,;:! ]/g, ' ')
    .replace(/\\(?:quad|qquad)\b/g, ' ');
}

/**
 * The option letter an answer names, or null: `C`, `(C)`, `C.`, `C)`, `[C]`, `\text{C}`, `C: text`,
 * `(C) text`, `Option C`. Letters are taken upper-case only when standing alone, so a sentence that
 * starts with "A" is not read as option A.
 */
export function choiceLetter(answer: string): string | null {
  const text = stripLatex(answer).replace(/\*\*/g, '').trim();
  // No two `\s*` in a row, so a long run of spaces is not split every way before failing.
  const alone = /^(?:(?:option|choice)\s+|\s*)(?:[([]\s*)?([A-Za-z])\s*(?:[)\]]\s*)?[.:]?$/i.exec(text);
  if (alone?.[1]) {
    const letter = alone[1];
    // A lone lower-case letter is an option only when written as one ("(b)", "b.").
    if (letter === letter.toUpperCase() || /[()[\].:]|option|choice/i.test(text)) return letter.toUpperCase();
    return null;
  }
  const leading = /^(?:option\s+|choice\s+)?[([]\s*([A-Z])\s*[)\]]|^([A-Z])\s*[).:]\s+\S/.exec(text);
  const letter = leading?.[1] ?? leading?.[2];
  return letter ?? null;
}
