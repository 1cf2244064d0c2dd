import type { Lang } from './language.js';

/**
 * Phrase lists of the speech-act gate (gate.ts) that read the whole message: a hypothetical
 * question ("what if I send…") and the writer saying it is a joke. Folded text (no accents,
 * lower case); a phrase matches between non-letters.
 */

/**
 * Each phrase list as one pattern, compiled once (the lists are this module's constants): the
 * alternation matches exactly when one of the phrases does, between characters that are no letter,
 * digit or underscore (the letters inside an id such as `pay_kyc6…` are no words).
 */
const phrasePatterns = new WeakMap<readonly string[], RegExp>();

export function hasPhrase(text: string, phrases: readonly string[]): boolean {
  let pattern = phrasePatterns.get(phrases);
  if (!pattern) {
    pattern = new RegExp(`(^|[^\\p{L}\\p{N}_])(?:${phrases.map((p) => p.replace(/[-']/g, "[-' ]?")).join('|')})($|[^\\p{L}\\p{N}_])`, 'u');
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
  // "imagine sending R5000 to @x for a pizza": a picture, not an order ("imagina", "imagine", "fikiria", "socho").
  'imagine', 'imagina', 'imaginez', 'imaginate', 'imaginese', 'fikiria', 'socho', 'soch lo', 'isipin mo',
  'what if', 'what happens if', 'what would happen if', 'wetin go happen if', 'wetin happen if', 'suppose', 'supposing',
  'et si', 'que se passe-t-il si', 'que se passe t il si', 'qu.est-ce qui se passe si', 'e se', 'o que acontece se', 'y si', 'que pasa si', 'que pasaria si',
  'itakuwaje', 'nini kitatokea', 'kya hoga agar', 'kya hoga', 'maan lo', 'paano kung', 'ano mangyayari kung', 'what if kung',
];

/**
 * A scam's bait, pasted or dictated: a claimed support desk, a locked account to unlock or verify, a
 * prize to collect ("your account is locked, transfer 50,000 to verify", "umeshinda… tuma 1,000
 * kupokea zawadi yako", "KYC update ke liye 1 rupaya bhejo"). Money asked for on such a say-so is
 * someone else's order, never the writer's: answered like reported speech. Folded.
 */
export const SCAM_BAIT = [
  'account is locked', 'account has been locked', 'account is blocked', 'account has been blocked', 'account is suspended', 'account has been suspended',
  'account will be blocked', 'account will be closed', 'this is support', 'this is customer care', 'customer care here', 'to verify your account',
  'to unlock your account', 'to reactivate your account', 'you have won', "you've won", 'claim your prize', 'kyc', 'bvn',
  'umeshinda', 'akaunti yako imefungwa', 'kupokea zawadi yako', 'kuthibitisha akaunti',
  'debloquer votre compte', 'debloquer ton compte', 'reactiver votre compte', 'vous avez gagne', 'tu as gagne', 'ici le service client',
  'liberar sua conta', 'liberar minha conta', 'desbloquear sua conta', 'desbloquear minha conta', 'voce ganhou',
  'reactivar su cuenta', 'reactivar tu cuenta', 'desbloquear su cuenta', 'desbloquear tu cuenta', 'ganaste un premio', 'usted gano',
  'sms aaya', 'message aaya', 'aapne jeeta', 'lottery lagi', 'nanalo ka', 'ma-verify', 'ma-unlock', 'i-verify ang account',
];

/**
 * The writer takes the request back in the same message ("…, non laisse tomber", "…, no, espérate,
 * mejor no", "…, forget it"): nothing is sent. "don't forget it" is no retraction. Folded.
 */
export const RETRACTIONS = [
  'laisse tomber', 'oublie ca', 'mejor no', 'olvidalo', 'olvida eso', 'esquece isso', 'deixa pra la', 'deixa quieto', 'forget it', 'forget about it',
  'scrap that', 'no need again', 'changed my mind', "actually no, don't", 'nimebadilisha mawazo', 'nimebadili mawazo', "j'ai change d'avis",
  'mudei de ideia', 'cambie de opinion', 'cambie de idea', 'mann badal gaya', 'nagbago isip ko', 'nagbago na isip ko', 'achana nayo', 'achana na hiyo', 'rehne do', 'chhodo', 'chhod do', 'wag na', 'huwag na', 'wag nalang',
];

export function isRetracted(foldedText: string): boolean {
  return hasPhrase(foldedText, RETRACTIONS) && !/\b(dont|don't|do not|never)\s+forget\b/.test(foldedText);
}

/**
 * The writer says the move is not needed ("no need to send 5k to @amaka", "não precisa fazer o link de
 * 80", "pas besoin d'envoyer", "hakuna haja ya kutuma", "bhejne ki zaroorat nahi", "di na kailangan yung
 * link"): a negation that none of the eight languages spells with a bare "not" next to the verb.
 * Which move it is about is read around it (gate.ts, `isNotNeeded`). Folded.
 */
export const NOT_NEEDED = [
  'no need', 'no needs', 'dont need to', 'do not need to', 'you dont need to', "don't need to", 'dont have to', "don't have to", 'do not have to', 'dont gotta',
  'needn t', 'neednt', 'not necessary', 'isnt necessary', 'not needed', 'unnecessary', 'no point', 'no use', 'forget the', 'forget about the', 'forget that',
  'no be necessary', 'e no necessary', 'no necessary',
  'nao precisa', 'nem precisa', 'nao precisamos', 'nao e preciso', 'nao e necessario', 'nao tem necessidade', 'sem necessidade', 'esquece o', 'esquece a', 'esquece esse', 'esquece essa', 'esquece aquele', 'esquece aquela',
  'no hace falta', 'ni hace falta', 'no es necesario', 'no hay necesidad', 'no hay que', 'no tienes que', 'no necesitas', 'olvida el', 'olvida la', 'olvidate del', 'olvidate de', 'olvida ese', 'olvida esa',
  'pas besoin', 'pas la peine', 'pas necessaire', 'inutile de', 'inutile d', 'oublie le', 'oublie la', 'oublie les', 'oublie ce', 'oublie cette', 'pas oblige',
  'hakuna haja', 'haina haja', 'si lazima', 'sio lazima', 'siyo lazima', 'usijisumbue',
  'zaroorat nahi', 'zarurat nahi', 'jarurat nahi', 'zaroorat nahin', 'zarurat nahin', 'jaroorat nahi', 'bhool jao', 'bhul jao',
  'hindi na kailangan', 'di na kailangan', 'hindi kailangan', 'di kailangan', 'hindi na kelangan', 'di na kelangan', 'kalimutan mo na', 'kalimutan mo yung', 'kalimutan na',
];

/** The message asks what would happen ("what if I send…"), folded text. */
export function isHypothetical(foldedText: string): boolean {
  return hasPhrase(foldedText, HYPOTHETICAL);
}

/** The writer says the message is a joke (folded text, fillers kept: "na joke o"). */
export function isJoking(foldedText: string): boolean {
  return hasPhrase(foldedText, JOKING);
}

/**
 * Words that take back what was just written: "no wait", "sorry", "actually", "i mean" everywhere, and
 * each language's own ("hapana", "non attends", "não pera", "no espera", "nahi", "ay mali", "pala").
 * Per language, because a word may mean something else next door (Tagalog "pera" is money,
 * Portuguese "pera" is "wait"; Swahili "mali" is property; Portuguese "no" is "in the"). Folded.
 */
const CORRECTING_EVERYWHERE = ['wait', 'sorry', 'actually', 'mean', 'instead', 'oops', 'correction', 'rather'];
const CORRECTING: Readonly<Record<Lang, ReadonlySet<string>>> = {
  en: new Set([...CORRECTING_EVERYWHERE, 'no']),
  pcm: new Set([...CORRECTING_EVERYWHERE, 'no']),
  sw: new Set([...CORRECTING_EVERYWHERE, 'no', 'hapana', 'samahani', 'aah', 'ngoja', 'badala']),
  fr: new Set([...CORRECTING_EVERYWHERE, 'non', 'attends', 'pardon', 'plutot']),
  pt: new Set([...CORRECTING_EVERYWHERE, 'nao', 'pera', 'espera', 'digo', 'alias', 'dizer']),
  es: new Set([...CORRECTING_EVERYWHERE, 'no', 'espera', 'digo', 'perdon', 'mejor']),
  hi: new Set([...CORRECTING_EVERYWHERE, 'no', 'nahi', 'nahin', 'matlab', 'balki']),
  tl: new Set([...CORRECTING_EVERYWHERE, 'no', 'ay', 'mali', 'pala', 'teka', 'hindi']),
};
/**
 * Correcting words that mean nothing else in any of the eight languages, read whatever language the
 * message was taken for (Spanish "manda 2 mil a @juan, perdón, 2,500" reads as Portuguese).
 */
const CORRECTING_ANY_LANG: ReadonlySet<string> = new Set(['perdon', 'pardon', 'samahani', 'hapana', 'attends', 'plutot', 'digo', 'dizer', 'decir', 'nahi', 'nahin', 'matlab', 'teka']);

/**
 * The writer corrects an amount in the same message: two different amounts with a correcting word
 * between the first and the last ("send 3000 to @aisha. no wait make it 300", "tuma 200… aah hapana,
 * 300", "@priya ko 400 bhejo, nahi nahi 500"). Two amounts without such a word are held as before.
 */
export function isCorrection(lang: Lang, foldedNorms: readonly string[], mentions: readonly { amount: string; first: number; end: number; marked: boolean }[]): boolean {
  // A long unmarked number is a meter, account or phone number, not an amount ("… meter no. 45012345678").
  const money = mentions.filter((m) => m.marked || m.amount.split('.')[0]!.length < 7);
  if (money.length < 2 || new Set(money.map((m) => m.amount)).size < 2) return false;
  const from = money[0]!.end;
  const to = money[money.length - 1]!.first;
  return foldedNorms.slice(from, to).some((w) => CORRECTING[lang].has(w) || CORRECTING_ANY_LANG.has(w));
}

/**
 * "or" between two amounts, per language (Portuguese "o" is "the", Swahili "ya" is "of"); English
 * "or" everywhere (code-switching: "send 300 or 500 kay @liza"). Folded.
 */
const OR_WORDS: Readonly<Record<Lang, ReadonlySet<string>>> = {
  en: new Set(['or']),
  pcm: new Set(['or', 'abi']),
  sw: new Set(['or', 'au', 'ama']),
  fr: new Set(['or', 'ou']),
  pt: new Set(['or', 'ou']),
  es: new Set(['or', 'o', 'u']),
  hi: new Set(['or', 'ya', 'yaa']),
  tl: new Set(['or', 'o']),
};

/**
 * The writer offers two amounts to choose from: two different amounts with only an "or" between
 * them ("50 or 60 cedis", "20 ou 30 mille", "mia tano au elfu moja", "500 ya 1000"). Which one is
 * meant is asked, never picked. Returns the token range of the choice (first token, end), to quote.
 */
export function alternativeAmounts(lang: Lang, foldedNorms: readonly string[], mentions: readonly { amount: string; first: number; end: number; marked: boolean }[]): { first: number; end: number } | undefined {
  const money = mentions.filter((m) => m.marked || m.amount.split('.')[0]!.length < 7);
  for (let i = 0; i + 1 < money.length; i++) {
    const x = money[i]!;
    const y = money[i + 1]!;
    if (x.amount === y.amount || y.first !== x.end + 1) continue;
    if (OR_WORDS[lang].has(foldedNorms[x.end] ?? '')) return { first: x.first, end: y.end };
  }
  return undefined;
}
