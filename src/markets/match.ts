/** Finding a market by words of its question, and an outcome by its label. */
import { meaningOf, withNicknamesNamed } from './market-words.js';

const STOP_WORDS = new Set([
  'a', 'an', 'the', 'on', 'in', 'of', 'to', 'for', 'is', 'be', 'by', 'at', 'it', 'will', 'my', 'that', 'this',
  'about', 'market', 'bet', 'stake', 'question', 'and', 'or',
]);

function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * True when every significant word of `ref` appears in the question, whole or as the start
 * of a question word ("nairobi rain" matches "Will it rain in Nairobi tomorrow?"); `literal`
 * leaves out matches through another language's word.
 */
export function questionMatches(ref: string, question: string, literal = false): boolean {
  const wanted = withNicknamesNamed(words(ref)).filter((w) => !STOP_WORDS.has(w));
  if (!wanted.length) return false;
  const have = words(question);
  // A word also matches its meaning in another language ("mvua" the question's "rain"): a
  // Swahili or French reference finds an English question (./market-words.ts).
  // `literal`: the question's own words only, no translation.
  const meanings = new Set(literal ? [] : have.map(meaningOf));
  return wanted.every((w) => have.some((h) => h === w || (w.length >= 3 && h.startsWith(w))) || meanings.has(meaningOf(w)));
}

/**
 * Words a person puts around a market's name without naming anything in its question: the
 * corridor languages' articles and prepositions ("la CAN des Lions", "laban ng Gilas vs Japan",
 * "ile ya mvua") and the vague nouns of a nickname ("the bbnaija woman thing", "the afcon
 * matter", "the Arsenal one"). Only `looseQuestionMatches` leaves them out.
 */
const LOOSE_WORDS = new Set([
  'des', 'de', 'du', 'la', 'le', 'les', 'lo', 'los', 'las', 'el', 'del', 'al', 'en', 'da', 'do', 'das', 'dos', 'no', 'na', 'nos', 'nas',
  'ng', 'sa', 'si', 'yung', 'ang', 'vs', 'v', 'versus', 'contre', 'contra', 'ka', 'ki', 'ke', 'wala', 'wale', 'wali', 'mein', 'ya', 'la', 'ile', 'kwa', 'kwenye',
  'wey', 'di', 'dat', 'inside', 'one', 'thing', 'matter', 'wahala', 'koko', 'jambo', 'hiyo', 'truc', 'histoire', 'affaire', 'coisa', 'cosa', 'asunto', 'bagay', 'cheez', 'wala',
  'match', 'game', 'mechi', 'jogo', 'partido', 'laban', 'laro', 'mchezo',
]);

/**
 * `questionMatches` for a reference that matched no market as written: its connecting and vague
 * words left out ("CAN des Lions" -> "can", "lions"), at least one word left and every one of those
 * in the question (or its meaning: a nickname, market-words.ts). The caller takes a single match
 * only; several are asked about, none is "not found".
 */
export function looseQuestionMatches(ref: string, question: string): boolean {
  const wanted = withNicknamesNamed(words(ref)).filter((w) => !STOP_WORDS.has(w) && !LOOSE_WORDS.has(w));
  if (!wanted.length) return false;
  return questionMatches(wanted.join(' '), question);
}

/** Yes and no in the corridor languages: "Sí" backs a market's "Yes", "Non" its "No", "Haan" its "Sim". */
const YES = new Set(['yes', 'y', 'yeah', 'yep', 'oui', 'sim', 'si', 'ndiyo', 'ndio', 'haan', 'ha', 'haa', 'oo', 'opo', 'true']);
const NO = new Set(['no', 'n', 'nope', 'non', 'nao', 'hapana', 'nahi', 'nai', 'hindi', 'false']);
const fold = (s: string) => words(s).join(' ');

/**
 * Index of the outcome named by `text`: exact (case-insensitive), else a unique prefix, else
 * the same yes or no in another language when the market has exactly one such outcome.
 */
export function matchOutcome(outcomes: readonly string[], text: string, question?: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (!t) return undefined;
  const named = matchOutcomeText(outcomes, t);
  if (named !== undefined) return named;
  // A nickname of several words for one outcome ("Super Eagles" the market's "Nigeria"; market-words.ts).
  const renamed = withNicknamesNamed(words(t)).join(' ');
  if (renamed !== words(t).join(' ')) {
    const r = matchOutcomeText(outcomes, renamed);
    if (r !== undefined) return r;
  }
  return question === undefined ? undefined : backedByName(outcomes, words(t), question);
}

/** "to" before a win word: "Arsenal to win", "Mengão pra ganhar", "Sénégal pour gagner". */
const TO_WIN = new Set(['to', 'pra', 'para', 'pour', 'kwa', 'ku']);
/** The win words of the corridor languages (market-words.ts), and "to" of "X to win". */
const isWinWord = (w: string) => meaningOf(w) === 'win' || w === 'winning' || w === 'winner';

/**
 * "Arsenal winning", "Flamengo campeão", "India jeetega": a side backed by naming who wins. An
 * outcome of that name is that outcome; a yes/no market whose question names the same side and
 * asks whether it wins ("Will Arsenal win the Premier League?") is backed on its yes. A question
 * that does not ask about winning ("Will Arsenal lose…?") is never guessed.
 */
function backedByName(outcomes: readonly string[], said: readonly string[], question: string): number | undefined {
  const win = said.findIndex(isWinWord);
  if (win < 1) return undefined;
  const name = said.slice(0, TO_WIN.has(said[win - 1]!) ? win - 1 : win);
  if (!name.length || name.length > 3) return undefined;
  const asNamed = matchOutcomeText(outcomes, name.join(' '));
  if (asNamed !== undefined) return asNamed;
  const have = words(question);
  if (!have.some(isWinWord) || !questionMatches(name.join(' '), question)) return undefined;
  const yes = outcomes.map((o, i) => [fold(o), i] as const).filter(([o]) => YES.has(o));
  const no = outcomes.filter((o) => NO.has(fold(o)));
  return yes.length === 1 && no.length === 1 && outcomes.length === 2 ? yes[0]![1] : undefined;
}

function matchOutcomeText(outcomes: readonly string[], t: string): number | undefined {
  const exact = outcomes.findIndex((o) => o.toLowerCase() === t);
  if (exact >= 0) return exact;
  // Accents aside: "Sénégal" names the market's "Senegal", "nao" its "Não".
  const bare = fold(t);
  const same = outcomes.map((o, i) => [fold(o), i] as const).filter(([o]) => o === bare);
  if (bare && same.length === 1) return same[0]![1];
  const prefixed = outcomes.map((o, i) => [o.toLowerCase(), i] as const).filter(([o]) => o.startsWith(t));
  if (prefixed.length === 1) return prefixed[0]![1];
  // A nickname for one outcome ("Naija" the market's "Nigeria"; market-words.ts).
  const meant = outcomes.map((o, i) => [fold(o), i] as const).filter(([o]) => o === meaningOf(bare));
  if (bare && meant.length === 1) return meant[0]![1];
  for (const side of [YES, NO]) {
    if (!side.has(fold(t))) continue;
    const same = outcomes.map((o, i) => [fold(o), i] as const).filter(([o]) => side.has(o));
    if (same.length === 1) return same[0]![1];
  }
  return undefined;
}
