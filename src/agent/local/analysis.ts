import { billerKey, scanAliases, type AliasMatch, type BillerAliasIndex } from '../../bills/catalogue.js';
import { fillerIndices } from './fillers.js';
import { findMoney, type MoneyMention } from './amounts.js';
import { findTimeExpressions, safeTimeZone } from './dates.js';
import { CURRENCY_WORDS, ISO_CODES, scaleWord } from './currencies.js';
import { romanizeHindiWord } from './devanagari.js';
import { detectLanguage, type Lang } from './language.js';
import { lemmaOfToken } from './lexicon.js';
import { COMMA_DECIMAL_CURRENCIES, COMMA_CENTS_CURRENCIES, type NumberStyle } from './numbers.js';
import { foreignNumberWord, readNumberWords } from './number-words.js';
import { tokenize, type Token } from './tokenize.js';

/** What the caller knows that the message does not: the clock, the user's currency, the billers. */
export type ParseContext = {
  now: Date;
  /** The user's own currency (ISO code), used when a message names none. */
  localCurrency: string;
  /** IANA zone for "Friday" and "tomorrow"; default UTC. */
  timeZone?: string;
  /** billerAliasIndex(loadBillerCatalogue()); without it bills fall back to the words next to "meter" etc. */
  billers?: BillerAliasIndex;
};

/** One message, tokenized and annotated once; every slot extractor reads from this. */
export type Analysis = {
  text: string;
  /** The message's language (English when no other is detected); replies use it too. */
  lang: Lang;
  /** Numbers written in a form that is not one exact amount ("5e-1", "1/2", "-5"); quoted back when refused. */
  refusedNumbers: Token[];
  tokens: Token[];
  lemmas: string[];
  money: MoneyMention[];
  billerMatches: AliasMatch[];
  /** Token indices inside a biller alias ("9" of "9 mobile" is not an amount). */
  billerTokens: ReadonlySet<number>;
  now: Date;
  tz: string;
  localCurrency: string;
  billers: BillerAliasIndex | undefined;
  /** Token indices of politeness and timing fillers of the closed list (fillers.ts): "please", "cuando puedas". */
  fillers: ReadonlySet<number>;
};

/** Superscript and subscript digits, in digit order (NFKC would fold them into plain digits). */
const SUPERSCRIPTS = '\u2070\u00B9\u00B2\u00B3\u2074\u2075\u2076\u2077\u2078\u2079';
const SUBSCRIPTS = '\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089';

/** Same characters people mean the same by: NFKC, plain quotes and spaces. */
export function normalizeText(text: string): string {
  return (
    text
      // "5²" must not become "52": it stays visibly an exponent ("5^2"), which the number reader refuses.
      .replace(/[\u2070\u00B9\u00B2\u00B3\u2074-\u2079\u2080-\u2089]/g, (d) => `^${SUPERSCRIPTS.includes(d) ? SUPERSCRIPTS.indexOf(d) : SUBSCRIPTS.indexOf(d)}`)
      .normalize('NFKC')
      // "½" is "1\u20442" after NFKC: a fraction, refused like "1/2".
      .replace(/[\u2044\u2215]/g, '/')
      .replace(/[\u2018\u2019\u02BC]/g, "'")
      .replace(/[\u201C\u201D\u00AB\u00BB]/g, '"')
      .replace(/[\u00A0\u2007\u202F\u2009]/g, ' ')
      .replace(/[\u200B-\u200D\uFEFF]/g, '')
      // "(11) 98765-4321", "(55) 1234 5678": an area code in brackets before a phone's groups is part of the number, no aside.
      .replace(/\((\d{2,3})\) ?(?=\d{4,5}[- ]?\d{4}(?!\d))/g, '$1 ')
      // Hindi in Devanagari is read like the Roman Hinglish of the word tables (devanagari.ts).
      .replace(/[\u0900-\u097F]+/gu, romanizeHindiWord)
      .trim()
  );
}

export function analyse(raw: string, ctx: ParseContext): Analysis {
  const text = normalizeText(raw);
  const lang = detectLanguage(text);
  const localCurrency = ctx.localCurrency.trim().toUpperCase();
  const style: NumberStyle = {
    commaDecimal: COMMA_DECIMAL_CURRENCIES.has(localCurrency) || lang === 'fr' || lang === 'pt',
    indian: localCurrency === 'INR' || lang === 'hi',
    commaCents: COMMA_CENTS_CURRENCIES.has(localCurrency),
  };
  const tokens = foldNumberWords(tokenize(text, style), lang);
  const lemmas = leagueNotLink(tokens, stakeDrop(tokens, tokens.map((t) => lemmaOfToken(t, lang))));

  let billerMatches: AliasMatch[] = [];
  const billerTokens = new Set<number>();
  if (ctx.billers) {
    const keys = tokens.map((t) =>
      t.kind === 'word' || (t.kind === 'number' && !t.currency && !t.idLike && (t.digits?.length ?? 9) <= 2) ? billerKey(t.text) : '',
    );
    billerMatches = scanAliases(ctx.billers, keys);
    for (const m of billerMatches) for (let i = m.start; i < m.end; i++) billerTokens.add(i);
  }
  const messageSaysPhp = tokens.some((t) => t.norm === 'php' || t.norm === 'philippine' || t.currency === 'PHP');
  const refusedNumbers: Token[] = [];
  const tz = safeTimeZone(ctx.timeZone);
  // The day of a date ("cierra el 15 de diciembre") is not an amount, unless a currency marks it.
  const dated = findTimeExpressions(tokens, { now: ctx.now, tz });
  const money = findMoney(tokens, { localCurrency, messageSaysPhp, lang, style }, billerTokens, refusedNumbers).filter(
    (m) => m.currency !== undefined && tokens[m.index]!.currency !== undefined ? true : !dated.some((d) => m.index >= d.start && m.index < d.end),
  );

  return {
    text,
    lang,
    refusedNumbers,
    tokens,
    lemmas,
    money,
    billerMatches,
    billerTokens,
    now: ctx.now,
    tz,
    localCurrency,
    billers: ctx.billers,
    fillers: fillerIndices(tokens),
  };
}

const isCurrencyWord = (t: Token | undefined) => t !== undefined && (CURRENCY_WORDS[t.norm] !== undefined || ISO_CODES.has(t.norm.toUpperCase()));

/**
 * Runs of number words become one number token ("elfu tatu" -> 3000). The message's own
 * language is tried first, then English (Taglish, Hinglish and Pidgin count in English too).
 */
function foldNumberWords(tokens: Token[], lang: Lang): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; ) {
    const words: string[] = [];
    for (let j = i; j < tokens.length && tokens[j]!.kind === 'word'; j++) words.push(tokens[j]!.text);
    const read = words.length ? (readNumberWords(words, lang) ?? (lang !== 'en' ? readNumberWords(words, 'en') : undefined)) : undefined;
    // "2 million": a scale word after digits is the digits' multiplier, not a number of its own.
    // Not after a spelled number ("do hazaar" + "do hazaar"): that scale starts a second amount.
    // Nor after an identifier (a meter or phone number of seven digits or more), nor when the scale
    // opens a spelled number that leads with it ("meter 37123456789 elfu mbili": Swahili says the
    // thousand first; reading "37123456789 elfu" left "mbili", 2, as the amount).
    const prev = out[out.length - 1];
    const afterDigits =
      prev?.kind === 'number' && !prev.spelled && (prev.digits?.length ?? 0) < 7 && !(read && read.length > 1 && LEADING_SCALES.has(tokens[i]!.norm)) && scaleWord(tokens[i]!.norm, lang) !== undefined;
    // A run cut short by another language's hundreds or scale word ("mil doscientos" read as Portuguese) is no amount.
    const cut = read !== undefined && tokens[i + read.length]?.kind === 'word' && foreignNumberWord(tokens[i + read.length]!.text, lang);
    if (read && !afterDigits && !cut && (!read.weak || isCurrencyWord(tokens[i + read.length]))) {
      const first = tokens[i]!;
      const last = tokens[i + read.length - 1]!;
      out.push({ kind: 'number', text: `${first.text}${read.length > 1 ? '…' : ''}`, norm: read.value, start: first.start, end: last.end, value: read.value, digits: read.value.split('.')[0]!, spelled: true });
      out[out.length - 1]!.text = tokensText(tokens, i, i + read.length);
      i += read.length;
      continue;
    }
    out.push(tokens[i]!);
    i++;
  }
  return out;
}

/** Scale words said before their multiplier ("elfu mbili", "laki tatu"): Swahili's. */
const LEADING_SCALES = new Set(['elfu', 'laki', 'milioni']);

function tokensText(tokens: readonly Token[], start: number, end: number): string {
  return tokens.slice(start, end).map((t) => t.text).join(' ');
}

/** The message text covered by tokens [start, end). */
export function span(a: Analysis, start: number, end: number): string {
  if (end <= start) return '';
  return a.text.slice(a.tokens[start]!.start, a.tokens[end - 1]!.end);
}

export function hasLemma(a: Analysis, ...lemmas: string[]): boolean {
  return a.lemmas.some((l) => lemmas.includes(l));
}

/**
 * "drop 5k on Yes for the BBNaija market": "drop" (Pidgin's "send") puts money on a side when the
 * message names a market and no person; with a person it stays a transfer ("drop 5k for @amaka").
 */
function stakeDrop(tokens: readonly Token[], lemmas: string[]): string[] {
  const market = lemmas.some((l) => l === 'market');
  const person = tokens.some((t) => t.kind === 'mention' || t.kind === 'phone' || t.kind === 'email');
  if (!market || person) return lemmas;
  return lemmas.map((l, i) => (tokens[i]!.kind === 'word' && STAKE_SLANG.has(tokens[i]!.norm) ? 'put' : l));
}
const STAKE_SLANG = new Set(['drop', 'dash']);

/**
 * Mexican "liga" is a link ("mándame la liga de pago") and a league ("gana el América la liga", "Liga MX"):
 * a league where the message bets or names a win or the Liga MX, never a link to create then.
 */
function leagueNotLink(tokens: readonly Token[], lemmas: string[]): string[] {
  const norms = tokens.map((t) => t.norm.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase());
  const sports = norms.some((w) => LEAGUE_CONTEXT.has(w)) || tokens.some((t) => t.text.toLowerCase() === 'sí');
  return lemmas.map((l, i) => (l === 'link' && norms[i] === 'liga' && (sports || norms[i + 1] === 'mx') ? 'league' : l));
}
const LEAGUE_CONTEXT = new Set(['gana', 'ganar', 'gane', 'ganara', 'ganan', 'campeon', 'campeonato', 'apuesta', 'apuesto', 'apostar', 'apuestale', 'torneo', 'partido', 'equipo']);

/** Index of a lemma sequence ("top", "up") at or after `from`, or -1. */
export function findPhrase(a: Analysis, words: readonly string[], from = 0): number {
  outer: for (let i = from; i <= a.lemmas.length - words.length; i++) {
    for (let k = 0; k < words.length; k++) if (a.lemmas[i + k] !== words[k]) continue outer;
    return i;
  }
  return -1;
}
