import type { MoneyMention } from './amounts.js';
import { span, type Analysis } from './analysis.js';
import { FILLER_WORDS, NO_WORDS, YES_WORDS } from './lexicon.js';
import { fold } from './lexicon-i18n.js';
import { PHRASE_NICKNAMES } from '../../markets/market-words.js';

/** Slot helpers shared by the intent builders: amounts, free text, market references, outcomes. */

const AMOUNT_LEADS = new Set([
  'with', 'of', 'worth', 'amount', 'sum', 'send', 'transfer', 'pay', 'give', 'tip', 'bet', 'stake', 'put', 'wager', 'buy',
  'recharge', 'up', 'for', 'charge', 'remit', 'wire', 'lend', 'load', 'back',
]);

/** The most money-like mention not overlapping `exclude`: currency and separators beat bare numbers. */
export function pickAmount(a: Analysis, exclude: ReadonlySet<number> = new Set()): MoneyMention | undefined {
  let best: MoneyMention | undefined;
  let bestScore = -Infinity;
  for (const m of a.money) {
    if (exclude.has(m.index)) continue;
    const t = a.tokens[m.index]!;
    let s = 0;
    if (m.currency) s += 3;
    if (m.marked) s += 1;
    if (AMOUNT_LEADS.has(a.lemmas[m.first - 1] ?? '')) s += 1;
    if (!m.marked && (t.digits?.length ?? 0) >= 7) s -= 3;
    if (s > bestScore) {
      best = m;
      bestScore = s;
    }
  }
  return best;
}

export function moneyTokens(m: MoneyMention | undefined): Set<number> {
  const out = new Set<number>();
  if (m) for (let i = m.first; i < m.end; i++) out.add(i);
  return out;
}

/** "5000 KES" for replies, or the bare amount when no currency was said. */
export function describeAmount(m: MoneyMention): string {
  return m.currency ? `${m.amount} ${m.currency}` : m.amount;
}

const ARTICLES = new Set(['a', 'an', 'the']);
const HARD_STOPS = new Set(['.', '!', '?', ';', '(', ')', '[', ']', '{', '}', '|']);

export type FreeTextOptions = {
  /** Token indices that belong to other slots. */
  used: ReadonlySet<number>;
  /** Lemmas that end the text. */
  stopWords?: ReadonlySet<string>;
  /** Stop at a comma (default true). */
  commaStops?: boolean;
};

/**
 * Free text from token `from`: runs until punctuation, another slot, a stop word or filler
 * ("please", emoji). Leading articles are dropped ("for a haircut" -> "haircut").
 */
export function freeText(a: Analysis, from: number, opts: FreeTextOptions): { text: string; start: number; end: number } | undefined {
  let i = from;
  const quote = a.tokens[i];
  if (quote && (quote.text === '"' || quote.text === "'")) {
    // Quoted text runs to the closing quote, whatever it contains.
    let j = i + 1;
    while (j < a.tokens.length && a.tokens[j]!.text !== quote.text) j++;
    const text = span(a, i + 1, j).trim();
    return text ? { text, start: i + 1, end: j } : undefined;
  }
  while (i < a.tokens.length && ARTICLES.has(a.tokens[i]!.norm)) i++;
  const start = i;
  let end = i;
  for (; i < a.tokens.length; i++) {
    const t = a.tokens[i]!;
    if (opts.used.has(i)) break;
    if (t.kind === 'symbol') break;
    if (t.kind === 'punct' && (HARD_STOPS.has(t.text) || (t.text === ',' && opts.commaStops !== false))) break;
    if (t.kind === 'word' && (FILLER_WORDS.has(a.lemmas[i]!) || opts.stopWords?.has(a.lemmas[i]!))) break;
    end = i + 1;
  }
  // Trailing connectors carry nothing: "for lunch and" / "haircut -".
  while (end > start && (a.tokens[end - 1]!.kind === 'punct' || ['and', 'to', 'with', 'for', 'of'].includes(a.lemmas[end - 1]!))) end--;
  const text = span(a, start, end).trim();
  return text ? { text, start, end } : undefined;
}

const EN_YES = new Set(['yes', 'yeah', 'yep', 'yup', 'y', 'yea', 'ya', 'true']);
const EN_NO = new Set(['no', 'nope', 'nah', 'n', 'false']);

export function canonicalOutcome(text: string): string {
  const t = text.trim().replace(/^["']|["']$/g, '').trim();
  const lower = t.toLowerCase();
  // English yes/no are written as the outcomes are ("Yes"); "Oui", "Sim", "Sí" stay as typed,
  // since a French market's outcomes are "Oui"/"Non".
  if (EN_YES.has(lower)) return 'Yes';
  if (EN_NO.has(lower)) return 'No';
  return t.slice(0, 60).trim();
}

/** Words that can't be part of a market's name when reading backwards from "market". */
const NAME_STOPS = new Set([
  'the', 'a', 'an', 'my', 'this', 'that', 'on', 'in', 'for', 'at', 'to', 'of', 'from', 'with', 'into', 'is', 'as', 'and',
  'resolve', 'cancel', 'void', 'delete', 'scrap', 'abort', 'kill', 'remove', 'bet', 'stake', 'wager', 'put', 'back', 'place',
  'settle', 'declare', 'mark', 'close', 'show', 'list', 'about', 'our', 'your', 'me', 'i', 'please', 'refund', 'answer',
  'winner', 'won', 'result', 'outcome', 'call', 'off', 'punt', 'new', 'create', 'start',
  // Articles and linkers of the other corridor languages ("le marché de la CAN", "India wale market mein").
  'le', 'la', 'les', 'de', 'du', 'des', 'dans', 'sur', 'pour', 'avec', 'o', 'os', 'do', 'da', 'dos', 'das', 'no', 'na', 'em', 'el', 'los', 'las', 'del', 'en',
  'mein', 'wale', 'wala', 'wali', 'ka', 'ki', 'ke', 'pe', 'ya', 'wa', 'kwenye', 'ng', 'sa', 'ang', 'yung', 'karo', 'kar', 'resolve',
]);
const AFTER_MARKET = new Set(['about', 'on', 'for', 'called', 'named', 'titled', 're', 'regarding', ':', '-', 'whether', 'de', 'du', 'do', 'da', 'del', 'ya', 'la', 'wa', 'ng']);
const REF_STOPS = new Set([
  'as', 'is', 'was', 'to', 'with', 'on', 'in', 'for', 'at', 'please', 'and', 'resolve', 'cancel', 'yes', 'no', 'outcome',
  'winner', 'result', 'answer', 'avec', 'como', 'con', 'kama', 'karo', 'bilang', 'dans', 'mein',
]);

export type MarketRef = { ref: string; start: number; end: number };

/** The market a message points at: an mkt_ id, or the words around "market" ("the Lagos rain market"). */
export function findMarketRef(a: Analysis, used: ReadonlySet<number> = new Set()): MarketRef | undefined {
  const idIdx = a.tokens.findIndex((t) => t.kind === 'market_id');
  if (idIdx >= 0) return { ref: a.tokens[idIdx]!.text, start: idIdx, end: idIdx + 1 };

  const k = a.lemmas.findIndex((l) => l === 'market' || l === 'poll');
  if (k < 0) return undefined;
  const isNameToken = (i: number) => {
    const t = a.tokens[i];
    if (!t || used.has(i)) return false;
    if (t.kind === 'number') return !t.currency;
    return t.kind === 'word' && !NAME_STOPS.has(a.lemmas[i]!) && !FILLER_WORDS.has(a.lemmas[i]!);
  };
  const wale = ['wale', 'wala', 'wali', 'vale', 'vala'].includes(a.tokens[k - 1]?.norm ?? '');
  if (!wale && (AFTER_MARKET.has(a.lemmas[k + 1] ?? '') || AFTER_MARKET.has(a.tokens[k + 1]?.norm ?? ''))) {
    let from = k + 2;
    // "le marché de la CAN", "o mercado do Flamengo": skip the article after the linker.
    while (['la', 'le', 'les', 'l', 'o', 'a', 'os', 'as', 'el', 'los', 'las', 'the'].includes(a.tokens[from]?.norm ?? '')) from++;
    const after = freeText(a, from, { used, stopWords: REF_STOPS });
    if (after) return { ref: after.text, start: after.start, end: after.end };
  }
  // Hindi "India wale market": the name sits before "wale".
  const end = wale ? k - 1 : k;
  let s = end;
  while (s - 1 >= 0 && isNameToken(s - 1)) s--;
  // "Men in Blue wale market": a nickname of several words ends where the name does (market-words.ts).
  for (const [phrase] of PHRASE_NICKNAMES) {
    const n = phrase.split(' ').length;
    const from = end - n;
    if (from >= 0 && from < s && a.tokens.slice(from, end).every((t, j) => t.kind === 'word' && !used.has(from + j)) && a.tokens.slice(from, end).map((t) => fold(t.norm)).join(' ') === phrase) s = from;
  }
  if (s < end) return { ref: span(a, s, end), start: s, end: k };
  const after = freeText(a, k + 1, { used, stopWords: REF_STOPS });
  if (after && isNameToken(after.start)) return { ref: after.text, start: after.start, end: after.end };
  return undefined;
}

export function rangeSet(start: number, end: number, into = new Set<number>()): Set<number> {
  for (let i = start; i < end; i++) into.add(i);
  return into;
}
