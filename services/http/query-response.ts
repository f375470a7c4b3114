/**
 * OpenRLHF sends `query` = decode(prompt tokens + response tokens) with special tokens kept, and
 * `prompts[i]` = the prompt text before tokenization. The response is what the query adds to the
 * prompt, but the query does not always start with the prompt text:
 *
 * - OpenRLHF left-truncates a prompt longer than its budget, so the query starts inside the prompt;
 * - decode does not round-trip: `clean_up_tokenization_spaces` turns " ?" into "?", SentencePiece
 *   drops or adds a leading space, a multi-byte character split by truncation decodes to U+FFFD.
 *
 * Grading the whole query would grade the prompt too (a few-shot `\boxed{4}` in it is then "the
 * answer"), so the response is located by the first rule that applies, and a query in which none
 * applies is refused by name rather than graded.
 */

/** The error names no field: the caller knows which query it was. */
export type LocatedResponse = { ok: true; response: string; rule: LocateRule } | { ok: false; error: string };

/** `prefix`: the query starts with the prompt; `assistant_marker`: after the chat template's last assistant turn marker; `prompt_text`: after the prompt's text (or its tail) with whitespace ignored. */
export type LocateRule = 'no_prompt' | 'prefix' | 'assistant_marker' | 'prompt_text';

/**
 * Chat-template markers that open the assistant's turn (ChatML/Qwen/Phi-4, Llama 3, Llama 4, Gemma,
 * DeepSeek in full-width and ASCII bars, Phi-3/Zephyr/GLM, gpt-oss harmony, Mistral/Llama 2).
 */
const ASSISTANT_MARKERS = [
  '<|im_start|>assistant',
  '<|start_header_id|>assistant<|end_header_id|>',
  '<|header_start|>assistant<|header_end|>',
  '<start_of_turn>model',
  '<｜Assistant｜>',
  '<|Assistant|>',
  '<|assistant|>',
  '<|start|>assistant',
  '[/INST]',
];

/**
 * A prompt "ends with" a marker when at most this many characters follow it: the generation prefix a
 * template adds after the marker ("\n", "<|im_sep|>", "<think>\n"), never another turn.
 */
const MAX_GENERATION_PREFIX = 32;

/** Fewest prompt characters (whitespace aside) a left-truncated query must start with to be trusted. */
export const MIN_PROMPT_TAIL = 32;

const IGNORABLE = /[\s\uFFFD]/u;

export function locateResponse(query: string, prompt: string | undefined): LocatedResponse {
  if (prompt === undefined || prompt.trim() === '') return { ok: true, response: query, rule: 'no_prompt' };
  if (query.startsWith(prompt)) return { ok: true, response: query.slice(prompt.length), rule: 'prefix' };
  const marked = afterAssistantMarker(query, prompt);
  if (marked !== null) return { ok: true, response: marked, rule: 'assistant_marker' };
  const start = afterPromptText(query, prompt);
  if (start !== null) return { ok: true, response: query.slice(start), rule: 'prompt_text' };
  return {
    ok: false,
    error:
      'response not located: the query starts with neither the prompt (whitespace aside) nor its last ' +
      `${MIN_PROMPT_TAIL} characters, nor follows the assistant marker the prompt ends with`,
  };
}

/**
 * The query after the assistant marker the prompt ends with; else null. That marker is the first
 * occurrence in the query preceded by what precedes it in the prompt (its last MIN_PROMPT_TAIL
 * characters, whitespace and U+FFFD aside, or as much of them as a left-truncated query kept): a
 * chat marker the policy wrote inside its response (`\boxed{4}\n<|im_start|>assistant\n…`) has other
 * text before it and does not move the split.
 */
function afterAssistantMarker(query: string, prompt: string): string | null {
  for (const marker of ASSISTANT_MARKERS) {
    const inPrompt = prompt.lastIndexOf(marker);
    if (inPrompt < 0) continue;
    const generationPrefix = prompt.slice(inPrompt + marker.length);
    if (generationPrefix.length > MAX_GENERATION_PREFIX) continue;
    const context = tailSignificant(prompt, inPrompt, MIN_PROMPT_TAIL);
    for (let inQuery = query.indexOf(marker); inQuery >= 0; inQuery = query.indexOf(marker, inQuery + 1)) {
      const before = tailSignificant(query, inQuery, context.chars.length);
      const matches = before.chars.length === context.chars.length || before.reachedStart;
      if (!matches || !context.chars.endsWith(before.chars)) continue;
      const rest = query.slice(inQuery + marker.length);
      const skip = matchIgnoringWhitespace(rest, generationPrefix.trim());
      return skip === null ? rest.replace(/^\s+/, '') : rest.slice(skip).replace(/^\s+/, '');
    }
    return null;
  }
  return null;
}

/** The last `count` characters of `text` before `end` that are not whitespace or U+FFFD; whether the text ran out first. */
function tailSignificant(text: string, end: number, count: number): { chars: string; reachedStart: boolean } {
  const out: string[] = [];
  let at = end;
  while (at > 0 && out.length < count) {
    const code = text.codePointAt(at - 1)!;
    // A low surrogate: step back over the whole pair.
    const width = at >= 2 && code >= 0xdc00 && code <= 0xdfff ? 2 : 1;
    const char = text.slice(at - width, at);
    at -= width;
    if (!IGNORABLE.test(char)) out.push(char);
  }
  return { chars: out.reverse().join(''), reachedStart: at === 0 && out.length < count };
}

/** Where `text` ends once it has consumed `expected` (whitespace in either ignored); null if it does not start with it. */
function matchIgnoringWhitespace(text: string, expected: string): number | null {
  let t = 0;
  for (const char of expected) {
    if (IGNORABLE.test(char)) continue;
    while (t < text.length && IGNORABLE.test(text[t]!)) t++;
    if (!text.startsWith(char, t)) return null;
    t += char.length;
  }
  return t;
}

/**
 * Where the response starts when the query starts with the whole prompt, or with the prompt's tail
 * (left truncation), whitespace and U+FFFD ignored on both sides: the longest suffix of the prompt
 * that is a prefix of the query, found in linear time with the prefix function. The tail must be
 * the whole prompt or at least MIN_PROMPT_TAIL characters, so that a coincidence cannot pass.
 */
function afterPromptText(query: string, prompt: string): number | null {
  const p = significant(prompt);
  // Only the query's first |p| significant characters can take part in the overlap.
  const q = significant(query, p.chars.length);
  if (p.chars.length === 0) return null;
  // prefix function of q[0..|p|) · sentinel · p: its last value is the longest suffix of p that is a prefix of q.
  const text = [...q.chars, -1, ...p.chars];
  const pi = new Int32Array(text.length);
  for (let i = 1; i < text.length; i++) {
    let k = pi[i - 1]!;
    while (k > 0 && text[i] !== text[k]) k = pi[k - 1]!;
    if (text[i] === text[k]) k++;
    pi[i] = k;
  }
  const matched = pi[text.length - 1]!;
  if (matched === 0 || (matched < p.chars.length && matched < MIN_PROMPT_TAIL)) return null;
  let start = q.ends[matched - 1]!;
  // The prompt's own trailing whitespace ("…assistant\n") belongs to the prompt, not to the response.
  const trailing = prompt.slice(prompt.trimEnd().length);
  if (trailing !== '' && query.startsWith(trailing, start)) start += trailing.length;
  return start;
}

/** The first `limit` code points of `text` that are not whitespace or U+FFFD, with the index just past each in `text`. */
function significant(text: string, limit = Infinity): { chars: number[]; ends: number[] } {
  const chars: number[] = [];
  const ends: number[] = [];
  let index = 0;
  for (const char of text) {
    if (chars.length >= limit) break;
    index += char.length;
    if (IGNORABLE.test(char)) continue;
    chars.push(char.codePointAt(0)!);
    ends.push(index);
  }
  return { chars, ends };
}
