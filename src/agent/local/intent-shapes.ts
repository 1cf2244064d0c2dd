import { fold } from './lexicon-i18n.js';
import { meaningOf } from '../../markets/market-words.js';
import { findPhrase, hasLemma, type Analysis } from './analysis.js';
import { NO_WORDS, RECIPIENT_KINDS, YES_WORDS } from './lexicon.js';

/**
 * The shapes of a message that the tools' local intents score and gate on (a @handle suggests a
 * transfer, an mkt_ id a market action, an amount any money action), read once per message and
 * shared by every tool's `score` and `gate` (src/agent/tools/*.ts), plus the defining words
 * those gates ask for.
 */

export const TRANSFER_VERBS = ['send', 'transfer', 'remit', 'wire', 'give', 'tip', 'lend', 'pay', 'move', 'forward', 'p2p'];
export const BILL_NOUNS = [
  'meter', 'smartcard', 'iuc', 'decoder', 'token', 'airtime', 'data', 'bundle', 'bill', 'electricity', 'prepaid', 'postpaid',
  'subscription', 'kwh', 'units', 'recharge', 'topup', 'utility', 'utilities', 'light', 'credit', 'load',
];
export const MARKET_NOUNS = ['market', 'poll', 'prediction', 'markets', 'polls'];
export const STAKE_VERBS = ['bet', 'stake', 'wager', 'punt'];
/** Verbs that move money some other way than a stake: with one, a verbless stake shorthand is not read. */
export const MONEY_LEMMAS = ['send', 'transfer', 'pay', 'give', 'buy', 'remit', 'wire', 'tip', 'lend', 'recharge', 'load', 'top', 'request', 'create'];
export const LINK_NOUNS = ['link', 'checkout', 'invoice', 'paylink'];
export const QUESTION_STARTS: ReadonlySet<string> = new Set(['will', 'who', 'what', 'which', 'is', 'are', 'does', 'do', 'can', 'when', 'how', 'whether', 'would', 'should', 'did']);
export const HAVE_LEMMAS = ['have', 'got', 'left', 'remaining', 'own', 'hold'];

export interface Shapes {
  /** Token indices of recipients (@handle, phone, email, address, account id). */
  recipients: number[];
  /** Recipients other than a phone number (a phone may be a bill's account). */
  nonPhoneRecipients: number;
  /** A recipient right after "to". */
  recipientAfterTo: boolean;
  billerHit: boolean;
  /** A biller named by its own name, not a generic word ("airtime"). */
  namedBiller: boolean;
  /** A number that looks like an account or meter number. */
  accountLike: boolean;
  marketWord: boolean;
  marketId: boolean;
  /** Positive amounts, and whether one is marked by a currency. */
  amounts: number;
  markedAmount: boolean;
  /** "market: ...": the index of the market word before the colon, or -1. */
  colon: number;
  /** "as yes", "on no": how often a yes/no follows "on"/"for" (a stake) or "as"/"is"/"was"/"to" (a resolution). */
  onYesNo: number;
  asYesNo: number;
  /** "what do I have", "what have I got". */
  whatIHave: boolean;
  /** "how much ... have/left/...". */
  howMuchHave: boolean;
}

const memo = new WeakMap<Analysis, Shapes>();

export function shapesOf(a: Analysis): Shapes {
  const known = memo.get(a);
  if (known) return known;
  const recipients = a.tokens.flatMap((t, i) => (RECIPIENT_KINDS.has(t.kind) ? [i] : []));
  const billerHit = a.billerMatches.length > 0;
  const amounts = a.money.filter((m) => !m.negative);
  let onYesNo = 0;
  let asYesNo = 0;
  a.lemmas.forEach((l, i) => {
    const next = a.tokens[i + 1]?.norm ?? '';
    if (!(YES_WORDS.has(next) || NO_WORDS.has(next))) return;
    // Spanish "al" and French "au" ("ponle 100 al No", "mise 500 au Non") put the amount on the side too.
    // "a que sí gana…", "aposto que sim…": the side the amount goes on, after "(a) que".
    if (l === 'on' || l === 'for' || l === 'al' || l === 'au' || (l === 'que' && (a.lemmas[i - 1] === 'to' || a.lemmas[i - 1] === 'bet' || a.tokens[i - 1]?.kind === 'word' && ['apuesto', 'aposto', 'a'].includes(a.tokens[i - 1]!.norm)))) onYesNo++;
    if (l === 'as' || l === 'is' || l === 'was' || l === 'to') asYesNo++;
  });
  const shapes: Shapes = {
    recipients,
    nonPhoneRecipients: recipients.filter((i) => a.tokens[i]!.kind !== 'phone').length,
    recipientAfterTo: recipients.some((i) => a.lemmas[i - 1] === 'to'),
    billerHit,
    namedBiller: a.billerMatches.some((m) => !m.entry.generic),
    accountLike: a.tokens.some((t) => (t.kind === 'number' && !t.currency && (t.idLike || (t.digits?.length ?? 0) >= 7)) || (t.kind === 'phone' && billerHit)),
    marketWord: hasLemma(a, 'market', 'poll', 'prediction'),
    marketId: a.tokens.some((t) => t.kind === 'market_id'),
    amounts: amounts.length,
    markedAmount: amounts.some((m) => m.marked),
    colon: a.lemmas.findIndex((l, i) => (l === 'market' || l === 'poll' || l === 'prediction') && [':', '-', '–', '—'].includes(a.lemmas[i + 1] ?? '')),
    onYesNo,
    asYesNo,
    whatIHave: findPhrase(a, ['what', 'do', 'i', 'have']) >= 0 || findPhrase(a, ['what', 'have', 'i', 'got']) >= 0,
    howMuchHave: findPhrase(a, ['how', 'much']) >= 0 && hasLemma(a, ...HAVE_LEMMAS),
  };
  memo.set(a, shapes);
  return shapes;
}

/** Points an amount gives an action that takes one: 2 when a currency marks it, 1 when bare. */
export function amountPoints(s: Shapes): number {
  return s.amounts ? (s.markedAmount ? 2 : 1) : 0;
}

/** "in my wallet", "in my account", "what do I have". */
export function asksWhatIHave(a: Analysis): boolean {
  return shapesOf(a).whatIHave || findPhrase(a, ['in', 'my', 'wallet']) >= 0 || findPhrase(a, ['in', 'my', 'account']) >= 0;
}

/**
 * An amount put on a side, with no verb: "3k on Senegal in the afcon market", "1k on Yes, arsenal
 * market". The amount comes right before "on" (never "closes in 2 days", "en 2 días"), the side
 * right after it, a market is named, and no person and no other money verb.
 */
export function verblessStake(a: Analysis): boolean {
  const s = shapesOf(a);
  if (!(s.marketWord || s.marketId) || s.recipients.length > 0 || hasLemma(a, ...MONEY_LEMMAS, 'new')) return false;
  return a.money.some((m) => !m.negative && ['on', 'al', 'au'].includes(a.lemmas[m.end] ?? '') && a.tokens[m.end + 1]?.kind === 'word');
}

/** Vague nouns a market is called by ("the afcon one", "the afcon matter", "the bbnaija thing"). */
const VAGUE_MARKET_NOUNS = new Set(['one', 'matter', 'thing', 'wahala', 'koko']);
const THE_WORDS = new Set(['the', 'that', 'dat', 'di', 'this']);
const SW_THAT_ONE = new Set(['ile', 'hiyo', 'ule']);
const SW_OF = new Set(['ya', 'la', 'wa']);

/**
 * A market called by a vague noun after a name, "the afcon one", "di afcon matter", with an amount
 * put on a side and nobody to pay and no bill: the words left name the market (the service finds
 * it, or says none matches; src/markets/market-lookup.ts).
 */
export function nicknamedMarket(a: Analysis): boolean {
  const s = shapesOf(a);
  if (s.amounts === 0 || s.recipients.length > 0 || s.billerHit) return false;
  // Swahili "ile ya mvua" ("the one of rain"): the demonstrative, "ya/la", then the name.
  const swahiliOne = a.lang === 'sw' && a.tokens.some((t, i) => SW_THAT_ONE.has(t.norm) && SW_OF.has(a.tokens[i + 1]?.norm ?? '') && a.tokens[i + 2]?.kind === 'word');
  return swahiliOne || a.tokens.some((t, i) => VAGUE_MARKET_NOUNS.has(t.norm) && i >= 2 && a.tokens[i - 1]!.kind === 'word' && !THE_WORDS.has(a.tokens[i - 1]!.norm) && THE_WORDS.has(a.tokens[i - 2]!.norm));
}

/** Possessives before (my, mes, mis, minhas, meri) or after (ko, zangu, yangu) the noun. */
const OWN_BEFORE = new Set(['my', 'mes', 'mis', 'meus', 'minhas', 'meri', 'mere']);
const OWN_AFTER = new Set(['ko', 'zangu', 'yangu', 'ng']);

/** "show my stakes", "montre mes paris", "minhas apostas", "beti zangu": the writer's own bets, to list (no amount). */
export function ownBets(a: Analysis): boolean {
  if (shapesOf(a).amounts > 0) return false;
  return a.lemmas.some((l, i) => (l === 'bet' || l === 'stake') && (OWN_BEFORE.has(a.tokens[i - 1]?.norm ?? '') || (OWN_AFTER.has(a.tokens[i + 1]?.norm ?? '') && a.tokens[i + 1]!.norm !== 'ng')));
}

/** Plural determiners before a bet noun: "les paris", "the bets", "as apostas", "las apuestas", "mga taya". */
const PLURAL_BEFORE = new Set(['les', 'des', 'the', 'os', 'as', 'los', 'las', 'mga', 'any', 'quels', 'quelles', 'which', 'what', 'kaun', 'kya', 'zipi']);
/** Bet nouns in the plural that the lexicon may not fold onto "bet". */
const BET_PLURALS = new Set(['bets', 'paris', 'apostas', 'apuestas', 'wagers', 'stakes', 'beti', 'taya', 'pusta']);
/** Open, in the corridor languages, as people ask for what they can still bet on. */
const OPEN_WORDS = new Set(['ouverts', 'ouvertes', 'ouvert', 'abertas', 'abertos', 'aberta', 'abiertas', 'abiertos', 'abierta', 'wazi', 'khule', 'chalu', 'disponibles', 'disponiveis', 'available', 'open', 'active', 'live', 'current', 'ongoing']);

/**
 * "c'est quoi les paris ouverts ?", "which bets are open", "quais apostas estão abertas", "las apuestas
 * abiertas": bets in the plural, asked for as open, with no amount and no market named: a listing of
 * the markets, not a stake missing its market (issue h16).
 */
export function openBets(a: Analysis): boolean {
  const s = shapesOf(a);
  if (s.amounts > 0 || s.marketId) return false;
  const open = a.tokens.some((t, i) => OPEN_WORDS.has(t.norm) || a.lemmas[i] === 'open');
  return open && a.lemmas.some((l, i) => (l === 'bet' || BET_PLURALS.has(fold(a.tokens[i]!.norm))) && (/s$/.test(a.tokens[i]!.norm) || PLURAL_BEFORE.has(a.tokens[i - 1]?.norm ?? '')));
}

/** The words of winning in the corridor languages (the markets' own word map) and "winning"/"campeão". */
export const isWinWord = (folded: string): boolean => meaningOf(folded) === 'win' || folded === 'winning' || folded === 'winner';
/** Words a side is backed with: "on", "no"/"na" (pt), "al", "a que" (es/pt), "sur"/"au" (fr), "pe" (hi), "kwa" (sw), "sa" (tl). */
const BACK_LINKS = new Set(['on', 'no', 'na', 'al', 'au', 'sur', 'pe', 'par', 'kwa', 'sa', 'for', 'que', 'ke']);

/**
 * "put 50 on Arsenal winning the league", "aposta 50 no Flamengo campeão": a stake on a side named by
 * who wins (one to three words after the link, then a win word). The index of the name's first word
 * and of the win word, or undefined.
 */
export function backsAWinner(a: Analysis): { name: number; win: number } | undefined {
  if (shapesOf(a).amounts === 0) return undefined;
  for (let i = 0; i < a.tokens.length - 2; i++) {
    if (!BACK_LINKS.has(fold(a.tokens[i]!.norm))) continue;
    for (let k = i + 2; k <= i + 4 && k < a.tokens.length; k++) {
      const x = a.tokens[k]!;
      if (a.tokens.slice(i + 1, k).some((y) => y.kind !== 'word')) break;
      if (x.kind === 'word' && isWinWord(fold(x.norm))) return { name: i + 1, win: k };
    }
  }
  return undefined;
}
