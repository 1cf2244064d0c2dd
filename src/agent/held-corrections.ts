import { readDigits } from './local/numbers.js';
import { CURRENCY_WORDS, ISO_CODES, resolveCurrencyWord } from './local/currencies.js';

/**
 * A person's follow-up that corrects the action just held for them, typed instead of a new
 * request: "make it 3k", "no, 3000", "actually to @bola", "send it to @bola instead",
 * "change it to 2,500 naira". A closed grammar, whole messages only (anything more is an
 * ordinary turn): optional correcting words, an optional "make it" / "change it to" phrase,
 * then a new amount (digits, "k"/"m", a currency code or word) and/or "to <recipient>"
 * (@handle, email, E.164 phone, 0x address, acct_ id), then optional "instead" / "please".
 * The agent replaces that field of the held call (docs/api-decisions.md "Seventeenth round").
 */
export interface HeldCorrection {
  amount?: string;
  currency?: string;
  recipient?: string;
}

const LEAD = new Set(['no', 'nope', 'sorry', 'oops', 'wait', 'actually', 'correction', 'rather', 'sorry,', 'hapana', 'non', 'nahi', 'nahin', 'i', 'mean', 'meant', 'oh', 'ah', 'aah']);
const VERB_PHRASES = [
  ['make', 'it'], ['make', 'that'], ['make', 'it', 'to'],
  ['change', 'it', 'to'], ['change', 'that', 'to'], ['change', 'the', 'amount', 'to'], ['change', 'the', 'recipient', 'to'], ['change', 'it'],
  ['send', 'it'], ['send', 'that'], ['it', 'should', 'be'], ['should', 'be'], ['it', 'is'], ["it's"], ['let', 'it', 'be'],
  ['the', 'amount', 'is'], ['amount'],
];
const TAIL = new Set(['instead', 'please', 'pls', 'plz', 'then', 'only', 'rather']);
const RECIPIENT = /^(@[A-Za-z0-9_]{3,32}|[^\s@]+@[^\s@]+\.[A-Za-z]{2,}|\+[1-9]\d{6,14}|0x[0-9a-fA-F]{40}|acct_[0-9A-Za-z]{10,64})$/;
const NUMBER = /^(\d[\d,]*(?:\.\d+)?)(k|m)?$/i;

/** A decimal string times 10^digits ("2.5", 3 -> "2500"). */
function shift(value: string, digits: number): string {
  const [int, frac = ''] = value.split('.');
  const all = `${int}${frac.padEnd(digits, '0')}`;
  const cut = int!.length + digits;
  const frac2 = all.slice(cut).replace(/0+$/, '');
  const int2 = all.slice(0, cut).replace(/^0+(?=\d)/, '');
  return frac2 ? `${int2}.${frac2}` : int2;
}

function readAmount(token: string): string | undefined {
  const m = NUMBER.exec(token);
  if (!m) return undefined;
  const digits = readDigits(m[1]!);
  if (!digits.ok) return undefined;
  const scale = m[2]?.toLowerCase();
  const value = scale === 'k' ? shift(digits.value, 3) : scale === 'm' ? shift(digits.value, 6) : digits.value;
  return /^0*(\.0*)?$/.test(value) ? undefined : value;
}

function readCurrency(token: string | undefined, localCurrency: string): string | undefined {
  if (!token) return undefined;
  const upper = token.toUpperCase();
  if (ISO_CODES.has(upper)) return upper;
  const word = CURRENCY_WORDS[token.toLowerCase()];
  if (!word) return undefined;
  const code = resolveCurrencyWord(word, localCurrency, false);
  return /^[A-Z]{3}$/.test(code) ? code : undefined;
}

/** The correction a whole message makes, or undefined when it is anything else. */
export function readCorrection(message: string, localCurrency: string): HeldCorrection | undefined {
  const words = message
    .normalize('NFC')
    .trim()
    .replace(/[.!…]+$/u, '')
    .split(/\s+/u)
    .map((w) => w.replace(/^[,;:]+|[,;:]+$/g, ''))
    .filter(Boolean);
  let i = 0;
  let corrected = false;
  while (i < words.length && LEAD.has(words[i]!.toLowerCase())) {
    corrected = true;
    i++;
  }
  const lower = words.map((w) => w.toLowerCase());
  const phrase = VERB_PHRASES.filter((p) => p.every((w, k) => lower[i + k] === w)).sort((a, b) => b.length - a.length)[0];
  if (phrase) {
    corrected = true;
    i += phrase.length;
  }
  const out: HeldCorrection = {};
  for (; i < words.length; i++) {
    const w = words[i]!;
    const lw = lower[i]!;
    if (out.amount === undefined && readAmount(w) !== undefined) {
      out.amount = readAmount(w)!;
      const after = readCurrency(words[i + 1], localCurrency);
      if (after) {
        out.currency = after;
        i++;
      }
      continue;
    }
    if (out.amount === undefined && out.currency === undefined && readCurrency(w, localCurrency) && readAmount(words[i + 1] ?? '') !== undefined) {
      out.currency = readCurrency(w, localCurrency)!;
      continue;
    }
    if (out.recipient === undefined && lw === 'to' && RECIPIENT.test(words[i + 1] ?? '')) {
      out.recipient = words[++i]!;
      continue;
    }
    // "make it @bola": a bare recipient only after a correcting word or phrase.
    if (out.recipient === undefined && corrected && RECIPIENT.test(w)) {
      out.recipient = w;
      continue;
    }
    if (TAIL.has(lw)) {
      corrected = true;
      continue;
    }
    return undefined;
  }
  if (out.currency !== undefined && out.amount === undefined) return undefined;
  if (out.amount === undefined && out.recipient === undefined) return undefined;
  // A bare "3000" or "to @bola" is a correction only with a word that says so; "3000 instead" says so.
  return corrected ? out : undefined;
}
