import { analyse, type Analysis } from '../local/analysis.js';
import { currencyAt } from '../local/amounts.js';
import { normalizeDecimal } from '../local/decimal.js';
import { fold } from '../local/lexicon-i18n.js';
import { NO_WORDS, YES_WORDS } from '../local/lexicon.js';
import { ownWords } from './own-words.js';

/**
 * The person's own words, read once by the local engine's own reader (analysis.ts): the same
 * number forms ("5k", "1.500,50", "mia tano", "do hazaar"), currencies by code, symbol or
 * name, handles, phones, e-mails and addresses. Every grounding check reads from this.
 */
export type OwnReading = {
  /** The message with quoted and forwarded text blanked out. */
  text: string;
  quoted: string[];
  a: Analysis;
  /** Money mentions: a normalised amount with the currency written next to it, if any. */
  money: { amount: string; currency?: string; digits: string }[];
  /** Every currency the own words name, anywhere. */
  currencies: Set<string>;
  /** Identifiers a recipient or an account number can be: handles, e-mails, addresses, ids (lower-case). */
  ids: Set<string>;
  /** Who the words could send to: handles, e-mails, addresses, account ids, phone numbers. */
  recipients: string[];
  /** Digit strings (phones, meter numbers, spaced groups joined). */
  digitRuns: string[];
  /** Folded lower-case words, for market references and named outcomes. */
  words: string[];
  /** "yes" / "no" when a word of either kind is written (Sí, Sim, Oui, Ndiyo, Haan, Oo; Não, Non, Hapana, Nahi, Hindi). */
  outcomeWords: Set<'yes' | 'no'>;
};

/** Outcome words the local lexicon may not list (unaccented or Tagalog forms). */
const EXTRA_YES = new Set(['si', 'oo', 'ndio', 'ndiyo', 'opo', 'ha', 'haa']);
const EXTRA_NO = new Set(['nao', 'hindi', 'nahin', 'nai', 'hapana', 'la']);

export function yesNo(word: string): 'yes' | 'no' | undefined {
  const w = word.toLowerCase();
  const f = fold(w);
  if (w.length < 2) return undefined;
  if (YES_WORDS.has(w) || YES_WORDS.has(f) || EXTRA_YES.has(f)) return 'yes';
  if (NO_WORDS.has(w) || NO_WORDS.has(f) || EXTRA_NO.has(f)) return 'no';
  return undefined;
}

/** "5000.50" / "05000.5" -> "5000.5": equal amounts compare equal. */
export function canonicalAmount(value: string): string | undefined {
  const m = /^\s*(\d+)(?:\.(\d+))?\s*$/.exec(value);
  return m ? normalizeDecimal(m[1]!, m[2] ?? '') : undefined;
}

export function readOwnWords(message: string, localCurrency: string, now: Date): OwnReading {
  const own = ownWords(message);
  const a = analyse(own.text, { now, localCurrency });
  const money = a.money
    .filter((m) => !m.negative)
    .map((m) => ({ amount: canonicalAmount(m.amount) ?? m.amount, digits: a.tokens[m.index]?.digits ?? '', ...(m.currency ? { currency: m.currency } : {}) }));
  const messageSaysPhp = a.tokens.some((t) => t.norm === 'php' || t.currency === 'PHP');
  const cctx = { localCurrency: a.localCurrency, messageSaysPhp, lang: a.lang };
  const currencies = new Set<string>();
  for (const m of money) if (m.currency) currencies.add(m.currency);
  a.tokens.forEach((t, i) => {
    if (t.currency) currencies.add(t.currency);
    const c = currencyAt(a.tokens, i, cctx);
    if (c) currencies.add(c.code);
  });
  const ids = new Set<string>();
  const recipients = new Set<string>();
  const words: string[] = [];
  const outcomeWords = new Set<'yes' | 'no'>();
  for (const t of a.tokens) {
    if (t.kind === 'mention' || t.kind === 'email' || t.kind === 'address' || t.kind === 'account_id' || t.kind === 'market_id') ids.add(t.text.toLowerCase());
    if (t.kind === 'word' && /\d/.test(t.text)) ids.add(t.text.toLowerCase());
    // A payment id ("pay_x"), digits or not: what a refund, capture or void names.
    if (t.kind === 'word' && /^pay_[0-9a-z]+$/i.test(t.text)) ids.add(t.text.toLowerCase());
    if (t.kind === 'mention' || t.kind === 'email' || t.kind === 'address' || t.kind === 'account_id') recipients.add(t.text.toLowerCase());
    if (t.kind === 'phone') recipients.add(t.norm.replace(/[^\d+]/g, ''));
    if (t.kind === 'word' || t.kind === 'number') words.push(fold(t.text.toLowerCase()));
    if (t.kind === 'word') {
      const yn = yesNo(t.text);
      if (yn) outcomeWords.add(yn);
    }
  }
  // Digits as typed, with the spaces, dots and dashes inside a number taken out ("+254 712-345 678").
  const digitRuns = [...own.text.matchAll(/\d+/g)].map((m) => m[0]);
  for (const m of own.text.replace(/(?<=\d)[\s.-](?=\d)/g, '').matchAll(/\d+/g)) digitRuns.push(m[0]);
  return { text: own.text, quoted: own.quoted, a, money, currencies, ids, recipients: [...recipients], digitRuns, words, outcomeWords };
}

/**
 * Two ways of writing one number: equal digits, or equal once a trunk zero and a country
 * calling code (1-3 digits) are set aside ("08031234567" and "+2348031234567").
 */
export function sameNumber(x: string, y: string): boolean {
  const a = x.replace(/\D/g, '');
  const b = y.replace(/\D/g, '');
  if (!a || !b) return false;
  if (a === b) return true;
  const na = a.replace(/^0+/, '');
  const nb = b.replace(/^0+/, '');
  if (na === nb) return na.length >= 3;
  const [long, short] = na.length > nb.length ? [na, nb] : [nb, na];
  return short.length >= 7 && long.endsWith(short) && long.length - short.length <= 3;
}
