/** LaTeX wrappers whose content is the answer: `\text{…}`, `\mathrm{…}`, `\textbf{…}`, … */
const WRAPPERS = /\\(?:text|textbf|textit|mathrm|mathbf|mathit|operatorname|emph)\s*\{([^{}]*)\}/g;

/** Removes LaTeX wrappers and math delimiters, keeping their content. */
export function stripLatex(text: string): string {
  let out = text;
  for (let i = 0; i < 4 && WRAPPERS.test(out); i++) out = out.replace(WRAPPERS, '$1');
  return out
    .replace(/\\[()[\]]/g, ' ')
    .replace(/\$/g, ' ')
    .replace(/\\[,;:! ]/g, ' ')
    .replace(/\\(?:quad|qquad)\b/g, ' ');
}

/**
 * The comparison form of a free-text answer: LaTeX wrappers removed, lower case, punctuation and the
 * articles a/an/the dropped, whitespace collapsed (the SQuAD-style rule, plus LaTeX).
 */
export function normalizeAnswer(text: string): string {
  return stripLatex(text)
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\b(?:a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The option letter an answer names, or null: `C`, `(C)`, `C.`, `C)`, `[C]`, `\text{C}`, `C: text`,
 * `(C) text`, `Option C`. Letters are taken upper-case only when standing alone, so a sentence that
 * starts with "A" is not read as option A.
 */
export function choiceLetter(answer: string): string | null {
  const text = stripLatex(answer).replace(/\*\*/g, '').trim();
  const alone = /^(?:option\s+|choice\s+)?[([]?\s*([A-Za-z])\s*[)\]]?\s*[.:]?$/i.exec(text);
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
