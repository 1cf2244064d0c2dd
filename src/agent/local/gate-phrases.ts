/**
 * Phrase lists of the speech-act gate (gate.ts) that read the whole message: a hypothetical
 * question ("what if I send…") and the writer saying it is a joke. Folded text (no accents,
 * lower case); a phrase matches between non-letters.
 */

/**
 * Each phrase list as one pattern, compiled once (the lists are this module's constants): the
 * alternation matches exactly when one of the phrases, each between non-letters, does.
 */
const phrasePatterns = new WeakMap<readonly string[], RegExp>();

export function hasPhrase(text: string, phrases: readonly string[]): boolean {
  let pattern = phrasePatterns.get(phrases);
  if (!pattern) {
    pattern = new RegExp(`(^|[^\\p{L}])(?:${phrases.map((p) => p.replace(/[-']/g, "[-' ]?")).join('|')})($|[^\\p{L}])`, 'u');
    phrasePatterns.set(phrases, pattern);
  }
  return pattern.test(text);
}

/** Words that say "I am joking" in the eight languages (laughter alone, "lol", "haha", is not this: it holds). */
export const JOKING = [
  'jk', 'just kidding', 'only kidding', 'kidding', 'joking', 'na joke', 'joke o', 'i dey play', 'i dey joke', 'natania', 'ninatania', 'utani tu', 'ni utani',
  'je rigole', 'je plaisante', "c'est une blague", 'cest une blague', 'brincadeira', 'to brincando', 'es broma', 'es una broma', 'es chiste', 'bromeando',
  'mazaak', 'mazak', 'majak', 'mazaak hai', 'joke lang', 'biro lang', 'charot', 'joke only',
];

/** Hypothetical questions in the eight languages: "what if I send…", "et si j'envoie…", "y si le mando…", "kya hoga agar…". */
export const HYPOTHETICAL = [
  'what if', 'what happens if', 'what would happen if', 'wetin go happen if', 'wetin happen if', 'suppose', 'supposing',
  'et si', 'que se passe-t-il si', 'que se passe t il si', 'qu.est-ce qui se passe si', 'e se', 'o que acontece se', 'y si', 'que pasa si', 'que pasaria si',
  'itakuwaje', 'nini kitatokea', 'kya hoga agar', 'kya hoga', 'maan lo', 'paano kung', 'ano mangyayari kung', 'what if kung',
];

/** The message asks what would happen ("what if I send…"), folded text. */
export function isHypothetical(foldedText: string): boolean {
  return hasPhrase(foldedText, HYPOTHETICAL);
}

/** The writer says the message is a joke (folded text, fillers kept: "na joke o"). */
export function isJoking(foldedText: string): boolean {
  return hasPhrase(foldedText, JOKING);
}
