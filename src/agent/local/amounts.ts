import { CURRENCY_PHRASES, CURRENCY_WORDS, ISO_CODES, PREFIX_SYMBOLS, resolveCurrencyWord, resolveSymbol, scaleWord } from './currencies.js';
import { DEFAULT_STYLE, readDigits, styleFor, type NumberStyle } from './numbers.js';
import { shiftDecimal } from './decimal.js';
import { MONTHS, TIME_UNITS } from './date-words.js';
import type { Token } from './tokenize.js';

/**
 * Money mentions: a number plus what makes it money around it (a currency before or after,
 * a scale word like "k" or "million"). Numbers that are durations, dates, ordinals or
 * identifiers are not money.
 */
export type MoneyMention = {
  /** Plain decimal string ("5000", "12.5"). */
  amount: string;
  currency?: string;
  /** Index of the number token. */
  index: number;
  /** Token span [first, end) including currency and scale words. */
  first: number;
  end: number;
  negative: boolean;
  /** Written as money (currency, scale or separators): a strong amount signal. */
  marked: boolean;
};

export type CurrencyContext = { localCurrency: string; messageSaysPhp: boolean; lang?: string; style?: NumberStyle };

/** A currency named by the tokens at i (two-word names first). */
export function currencyAt(tokens: readonly Token[], i: number, ctx: CurrencyContext): { code: string; length: number } | undefined {
  const t = tokens[i];
  if (!t) return undefined;
  const next = tokens[i + 1];
  if (next && (t.kind === 'word' || t.kind === 'punct') && next.kind === 'word') {
    const phrase = CURRENCY_PHRASES[`${t.norm} ${next.norm}`];
    if (phrase) {
      // "south african rand": swallow the third word too.
      const third = tokens[i + 2];
      const length = phrase === 'ZAR' && third?.norm.startsWith('rand') ? 3 : 2;
      return { code: phrase, length };
    }
  }
  // A sign of letters and a symbol written apart from the number ("150,00 R$", "50 US$", "80 GH₵"): the
  // lexer reads these glued before digits only; after the amount the letters and the symbol are two tokens,
  // and the letters alone ("R") would name another currency.
  if (t.kind === 'word' && next && next.kind === 'symbol' && next.start === t.end) {
    const sign = PREFIX_SYMBOLS.find((p) => p.symbol.length > 1 && p.symbol === t.text + next.text);
    if (sign) return { code: sign.code, length: 2 };
  }
  if (t.kind === 'word') {
    if (t.text === 'R') return { code: 'ZAR', length: 1 };
    const upper = t.norm.toUpperCase();
    if (ISO_CODES.has(upper)) return { code: upper, length: 1 };
    const word = CURRENCY_WORDS[t.norm];
    if (word) return { code: resolveCurrencyWord(word, ctx.localCurrency, ctx.messageSaysPhp), length: 1 };
  }
  if (t.kind === 'symbol' || t.kind === 'punct') {
    const word = CURRENCY_WORDS[t.text];
    if (word) return { code: word, length: 1 };
  }
  return undefined;
}

/** A currency named by the tokens ending just before i ("KES 5000", "US dollars 20"). */
function currencyBefore(tokens: readonly Token[], i: number, ctx: CurrencyContext): { code: string; length: number } | undefined {
  const two = currencyAt(tokens, i - 2, ctx);
  if (two && two.length === 2) return two;
  const one = currencyAt(tokens, i - 1, ctx);
  // "R" is only money glued to digits (the lexer handles "R150"); a loose "R" stays a letter.
  if (one && one.length === 1 && tokens[i - 1]?.text === 'R') return undefined;
  // An abbreviation's dot between the word and the digits: "Sh. 500", "Ksh. 1,200".
  if (!one && tokens[i - 1]?.text === '.' && tokens[i - 2]?.kind === 'word') {
    const dotted = currencyAt(tokens, i - 2, ctx);
    if (dotted && dotted.length === 1 && tokens[i - 2]?.text !== 'R') return { code: dotted.code, length: 2 };
  }
  return one;
}

/** Re-reading a number once its currency is known can make it exact ("1.000,50 EUR") or refuse it. */
const RE_READABLE = new Set(['ambiguous_separator', 'bad_grouping']);

export function findMoney(
  tokens: readonly Token[],
  ctx: CurrencyContext,
  skip: ReadonlySet<number> = new Set(),
  refused: Token[] = [],
): MoneyMention[] {
  const out: MoneyMention[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== 'number' || skip.has(i) || t.idLike || t.ordinal) continue;
    if (t.malformed && !RE_READABLE.has(t.malformed)) {
      refused.push(t);
      continue;
    }
    if (t.malformed || (t.blob && /[.,]/.test(t.blob) && !t.blob.includes(' ') && !t.spelled && !t.scaled)) {
      // The currency decides "1.000" (BRL: one thousand) and "120,00" (EUR: 120).
      const named = t.currency ?? currencyAt(tokens, i + 1, ctx)?.code ?? currencyBefore(tokens, i, ctx)?.code;
      let reading = readDigits(t.blob!, named ? styleFor(named, undefined) : (ctx.style ?? DEFAULT_STYLE));
      // "envoie 2,5 dollars": a form the currency's style cannot read ("2,5" is no thousands
      // grouping) is read in the writer's own style, where it has one meaning (2.5).
      if (!reading.ok && named && ctx.style) reading = readDigits(t.blob!, ctx.style);
      if (!reading.ok) {
        refused.push(t);
        continue;
      }
      if (t.malformed || (reading.value !== t.value && !t.scaled)) {
        t.value = reading.value;
        t.grouped = true;
        delete t.malformed;
      }
    }
    if (t.value === undefined) continue;
    const next = tokens[i + 1];
    const prev = tokens[i - 1];
    // "15oo", "5OOO", "50OO": letter o typed for zeros, glued to the digits. Read as digits it is a tenth or a
    // thousandth of what was meant; refused as a malformed amount, never moved as the digits before it (issue h16).
    if (next && next.kind === 'word' && next.start === t.end && /^[oO]+$/.test(next.text)) {
      refused.push(t);
      continue;
    }
    // Nine or more bare digits with no currency ("tuma 722334455 kwa @zawadi") are a phone or an account typed without
    // its 0, not an amount: nobody writes a hundred million without separators, a scale or a currency. Never moved; the
    // amount is asked for.
    if (/^\d{9,}$/.test(t.text) && !t.currency && !currencyAt(tokens, i + 1, ctx) && !currencyBefore(tokens, i, ctx)) continue;
    // Percentages are not amounts ("10% of my balance").
    if (next && (next.text === '%' || next.norm === 'percent' || next.norm === 'pc')) continue;
    // Durations and calendar days are not amounts: "in 3 days", "Dec 5", "5th of May".
    if (next && TIME_UNITS[next.norm] && next.norm !== 'm' && !t.currency) continue;
    if ((next && MONTHS[next.norm] && next.kind === 'word') || (prev && MONTHS[prev.norm] && prev.kind === 'word' && /^\d{1,2}$/.test(t.value))) {
      if (!t.currency) continue;
    }

    let amount = t.value;
    let currency = t.currency === undefined ? undefined : resolveSymbol(t.currency, ctx.localCurrency);
    let scaled = Boolean(t.scaled);
    let end = i + 1;
    let first = i;
    const scale = tokens[end] && tokens[end]!.kind === 'word' ? scaleWord(tokens[end]!.norm, ctx.lang ?? 'en') : undefined;
    // A spelled number already holds its own scales: "two thousand two" + "thousand" is two amounts, not 2,002,000.
    if (scale !== undefined && !scaled && !t.spelled) {
      amount = shiftDecimal(amount, scale);
      scaled = true;
      end++;
    }
    // "$800 MXN": the code after a bare dollar sign says which dollars (or pesos) are meant.
    // A bare sign after the number ("500$") is the same sign as before it.
    if (currency === 'USD' && (t.text.startsWith('$') || t.text.endsWith('$'))) {
      const after = currencyAt(tokens, end, ctx);
      if (after && ISO_CODES.has(after.code)) {
        currency = after.code;
        end += after.length;
      } else if (!after && ctx.localCurrency === 'MXN') {
        // In Mexico "$" is the peso sign: "$2,300" or "2,300$" from a peso account is 2,300 MXN (US$ or "dólares" say dollars).
        currency = 'MXN';
      }
    }
    if (!currency) {
      const after = currencyAt(tokens, end, ctx);
      if (after) {
        currency = after.code;
        end += after.length;
      } else if (francSignAt(tokens, end, ctx)) {
        currency = 'XOF';
        end += tokens[end + 1]?.norm === 'cfa' ? 2 : 1;
      }
    }
    if (!currency) {
      const before = currencyBefore(tokens, i, ctx);
      if (before) {
        currency = before.code;
        first = i - before.length;
      }
    }
    out.push({
      amount,
      index: i,
      first,
      end,
      negative: Boolean(t.negative),
      marked: Boolean(currency) || scaled || Boolean(t.grouped) || amount.includes('.'),
      ...(currency ? { currency } : {}),
    });
  }
  return out;
}

/** "10 000 F", "5000 F CFA": in Dakar a capital F after the amount is the CFA franc (French, or an XOF account). */
function francSignAt(tokens: readonly Token[], i: number, ctx: CurrencyContext): boolean {
  const t = tokens[i];
  if (!t || t.kind !== 'word') return false;
  // Typed lower case too ("2500f", "5 000 f cfa"); before "cfa" it is the franc for anyone.
  if (t.text === 'f' && tokens[i + 1]?.norm === 'cfa') return true;
  return (t.text === 'F' || t.text === 'f') && (ctx.lang === 'fr' || ctx.localCurrency === 'XOF');
}
