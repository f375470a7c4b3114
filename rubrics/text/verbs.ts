/**
 * Whether a response starts with a verb, for `words:start_verb`. The reference asks NLTK's
 * averaged-perceptron POS tagger for the first token's tag; its trained weights are not part of
 * this project, so this decides from the word itself: a base-form verb from a list of the verbs
 * instructions and answers open with, or an -ing / -ed form of a word that is not a common noun
 * or adjective with that ending.
 */
const BASE_VERBS = new Set(
  (
    'accept add allow analyze apply arrange ask assess avoid become begin believe bring build buy calculate call ' +
    'capture carry change check choose clean close combine come compare compose conceive consider continue create ' +
    'cut decide define delete describe design determine develop discover discuss do draw drink drive eat embrace ' +
    'enjoy ensure enter evaluate examine explain explore express feel fill find finish focus follow forget gather ' +
    'generate get give go grab grow help hold identify imagine implement improve include increase install introduce ' +
    'invest join keep know learn leave let list listen live look love make manage measure meet mix move note notice ' +
    'observe open organize paint pay pick place plan play practice prepare present press print prove provide pull ' +
    'push put read recall recognize reduce reflect remember remove repeat replace research review run save say ' +
    'see select sell send set share show sing sit sleep solve speak spend stand start stay step stop study ' +
    'submit summarize take talk teach tell test think touch try turn understand use visit wait walk want watch ' +
    'wear welcome whisper write'
  ).split(' '),
);

// The parentheses matter: `'a ' + 'b'.split(' ')` splits only the second string and makes the Set
// one of characters (as this was once, letting "Something" and "Building" through as verbs).
const NOT_VERBS = new Set(
  (
    'anything nothing something everything morning evening thing king ring spring string wing ceiling building ' +
    'feeling meeting painting wedding during bed red need seed speed hundred indeed'
  ).split(' '),
);

export function startsWithVerb(firstToken: string): boolean {
  const word = firstToken.toLowerCase();
  if (NOT_VERBS.has(word)) return false;
  if (BASE_VERBS.has(word)) return true;
  return /^[a-z]{3,}(?:ing|ed)$/.test(word);
}
