import { ISO_CODES, PREFIX_SYMBOLS, SUFFIX_SYMBOLS } from './currencies.js';
import { normalizeDecimal, shiftDecimal } from './decimal.js';
import { DEFAULT_STYLE, readDigits, styleFor, type NumberRefusal, type NumberStyle } from './numbers.js';
import { expectedE164Length } from '../../lib/phone.js';

/**
 * Lexer for chat messages. It recognises the things that have a shape (handles, phone
 * numbers, emails, addresses, ids, dates, times, numbers with their currency symbols and
 * k/m suffixes) and leaves everything else as words, punctuation or symbols (emoji).
 */

export type TokenKind =
  | 'word'
  | 'number'
  | 'mention'
  | 'phone'
  | 'email'
  | 'address'
  | 'account_id'
  | 'market_id'
  | 'isodate'
  | 'time'
  | 'punct'
  | 'symbol';

export interface Token {
  kind: TokenKind;
  /** As written. */
  text: string;
  /** Lower-case; words lose apostrophes and hyphens ("what's" -> "whats", "top-up" -> "topup"). */
  norm: string;
  start: number;
  end: number;
  /** number: plain decimal value after separators and k/m suffix ("5000", "12.5"). */
  value?: string;
  /** number: the digits as typed, leading zeros kept (for meter and phone numbers). */
  digits?: string;
  /** number: currency from a glued symbol or code ("₦5,000", "KES5000", "20$"). */
  currency?: string;
  scaled?: boolean;
  /** number: written with thousands separators ("5,000", "5 000"). */
  grouped?: boolean;
  /** number: shaped like an identifier (leading zero, or digits in spaced groups): never an amount. */
  idLike?: boolean;
  ordinal?: boolean;
  negative?: boolean;
  /** number: digits and separators as typed ("1.000,50"), re-read once the currency is known. */
  blob?: string;
  /** number: written in a form that is not one exact amount ("5e-1", "1/2", "-5", "(5)", "1,,000"). */
  malformed?: NumberRefusal;
  /** number: spelled out in words ("twenty", "elfu tatu"). */
  spelled?: boolean;
  /** time: 24-hour clock. */
  hour?: number;
  minute?: number;
  /** isodate */
  date?: { year: number; month: number; day: number; hour?: number; minute?: number; second?: number; offset?: string };
}

const WORD = /[\p{L}\p{M}][\p{L}\p{M}\p{N}_]*(?:['’-][\p{L}\p{M}\p{N}_]+)*/uy;
const EMAIL = /[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}(?![A-Za-z0-9])/y;
const ADDRESS = /0x[0-9a-fA-F]{40}(?![0-9A-Za-z_])/y;
const ACCOUNT_ID = /acct_[A-Za-z0-9]{1,64}(?![A-Za-z0-9_])/iy;
const MARKET_ID = /mkt_[A-Za-z0-9_-]{1,64}/iy;
const MENTION = /@[A-Za-z0-9_]{3,32}(?![A-Za-z0-9_])/y;
const ISODATE = /(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?(Z|[+-]\d{2}:?\d{2})?(?![\d])/y;
const TIME_12 = /(\d{1,2})(?::(\d{2}))?\s?(am|pm|a\.m\.|p\.m\.)(?![A-Za-z])/iy;
const TIME_24 = /([01]?\d|2[0-3]):([0-5]\d)(?![\d:])/y;
const NUMBER_BLOB = /\d[\d.,]*/y;
const ORDINAL = /(?:st|nd|rd|th)(?![A-Za-z])/iy;
const SCALE_SUFFIX = /(k|mn|bn|m)(?![A-Za-z0-9])/iy;
const PUNCT = /[.,!?;:()[\]{}"'`/\\|=+*&%#~<>\-–—…→]/y;

function at(re: RegExp, text: string, i: number): RegExpExecArray | null {
  re.lastIndex = i;
  return re.exec(text);
}

const isAlnum = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

export function tokenize(text: string, style: NumberStyle = DEFAULT_STYLE): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const tok = lexAt(text, i, style);
    out.push(tok);
    i = tok.end;
  }
  return out;
}

function simple(kind: TokenKind, text: string, start: number, norm = text.toLowerCase()): Token {
  return { kind, text, norm, start, end: start + text.length };
}

function lexAt(text: string, i: number, style: NumberStyle): Token {
  const prev = i > 0 ? text[i - 1] : undefined;
  const ch = text[i]!;
  let m: RegExpExecArray | null;

  if (!isAlnum(prev) && prev !== '@' && prev !== '.') {
    if ((m = at(EMAIL, text, i))) return simple('email', m[0], i);
    if ((m = at(ADDRESS, text, i))) return simple('address', m[0], i);
    if ((m = at(ACCOUNT_ID, text, i))) return simple('account_id', m[0], i, m[0]);
    if ((m = at(MARKET_ID, text, i))) return simple('market_id', m[0].replace(/[-_]+$/, ''), i, m[0].replace(/[-_]+$/, ''));
  }
  if (ch === '@' && !isAlnum(prev) && (m = at(MENTION, text, i))) return simple('mention', m[0], i, m[0].toLowerCase());
  if (ch === '+' && isDigit(text[i + 1])) {
    const phone = lexPhone(text, i);
    if (phone) return phone;
  }
  if (isDigit(ch) && !isAlnum(prev)) {
    if ((m = at(ISODATE, text, i))) {
      const month = Number(m[2]);
      const day = Number(m[3]);
      if (month >= 1 && month <= 12 && day >= 1 && day <= 31) {
        const tok = simple('isodate', m[0], i);
        tok.date = { year: Number(m[1]), month, day };
        if (m[4] !== undefined) {
          tok.date.hour = Number(m[4]);
          tok.date.minute = Number(m[5]);
          tok.date.second = m[6] !== undefined ? Number(m[6]) : 0;
        }
        if (m[7] !== undefined) tok.date.offset = m[7] === 'Z' ? 'Z' : m[7].length === 5 ? `${m[7].slice(0, 3)}:${m[7].slice(3)}` : m[7];
        return tok;
      }
    }
    if ((m = at(TIME_12, text, i))) {
      const h = Number(m[1]);
      const min = m[2] !== undefined ? Number(m[2]) : 0;
      if (h >= 1 && h <= 12 && min < 60) {
        const pm = m[3]!.toLowerCase().startsWith('p');
        const tok = simple('time', m[0], i);
        tok.hour = (h % 12) + (pm ? 12 : 0);
        tok.minute = min;
        return tok;
      }
    }
    if ((m = at(TIME_24, text, i))) {
      const tok = simple('time', m[0], i);
      tok.hour = Number(m[1]);
      tok.minute = Number(m[2]);
      return tok;
    }
  }
  const num = lexNumber(text, i, style);
  if (num) return num;
  if ((m = at(WORD, text, i))) {
    return simple('word', m[0], i, m[0].toLowerCase().replace(/['’-]/g, ''));
  }
  if ((m = at(PUNCT, text, i))) return simple('punct', m[0], i);
  const cp = String.fromCodePoint(text.codePointAt(i)!);
  return simple('symbol', cp, i);
}

/** "+254712345678", "+254 712 345 678", "+234-803-123-4567": separators allowed between groups. */
function lexPhone(text: string, i: number): Token | undefined {
  let j = i + 1;
  const group = /\d+/y;
  group.lastIndex = j;
  let g = group.exec(text);
  if (!g) return undefined;
  let digits = g[0];
  j += g[0].length;
  const limit = () => expectedE164Length(digits) ?? 15;
  while (digits.length < limit()) {
    const sep = text[j];
    if (sep !== ' ' && sep !== '-') break;
    group.lastIndex = j + 1;
    g = group.exec(text);
    if (!g || g.index !== j + 1 || digits.length + g[0].length > limit()) break;
    digits += g[0];
    j += 1 + g[0].length;
  }
  if (digits.length < 8 || digits.length > 15 || digits.startsWith('0')) return undefined;
  const tok = simple('phone', text.slice(i, j), i, `+${digits}`);
  tok.digits = `+${digits}`;
  return tok;
}

/** A currency prefix glued to (or, for symbols, one space before) a number at i. */
function prefixAt(text: string, i: number): { code: string; length: number } | undefined {
  const prev = i > 0 ? text[i - 1] : undefined;
  if (isAlnum(prev)) return undefined;
  for (const p of PREFIX_SYMBOLS) {
    const slice = text.slice(i, i + p.symbol.length);
    const same = p.caseSensitive ? slice === p.symbol : slice.toLowerCase() === p.symbol.toLowerCase();
    if (!same) continue;
    let j = i + p.symbol.length;
    if (text[j] === '.' && /[a-z]$/i.test(p.symbol)) j++; // "Ksh.500"
    if (!p.attachedOnly && text[j] === ' ') j++;
    if (isDigit(text[j])) return { code: p.code, length: j - i };
  }
  // ISO code glued to digits: "KES5000", "usd20".
  const iso = /([A-Za-z]{3,4})(?=\d)/y;
  iso.lastIndex = i;
  const m = iso.exec(text);
  if (m && ISO_CODES.has(m[1]!.toUpperCase())) return { code: m[1]!.toUpperCase(), length: m[1]!.length };
  return undefined;
}

const SIGNS = new Set(['-', '\u2212', '+', '\u2013']);

function lexNumber(text: string, i: number, style: NumberStyle): Token | undefined {
  let j = i;
  let sign = false;
  const prefix = prefixAt(text, j);
  if (prefix) {
    j += prefix.length;
    // "-$5": a sign before the symbol.
    if (SIGNS.has(text[i - 1] ?? '') && !isAlnum(text[i - 2])) sign = true;
  } else if (SIGNS.has(text[j] ?? '') && isDigit(text[j + 1]) && !isAlnum(text[j - 1])) {
    sign = true;
    j++;
  }
  if (!isDigit(text[j])) return undefined;
  if (!prefix && !sign && isAlnum(text[i - 1])) return undefined;

  const raw = at(NUMBER_BLOB, text, j);
  if (!raw) return undefined;
  // Separators at the end are the sentence's ("send 5000.", "5,000, please").
  let blob = raw[0].replace(/[.,]+$/, '');
  let end = j + blob.length;
  const tok: Token = { kind: 'number', text: '', norm: '', start: i, end };
  const refuse = (reason: NumberRefusal, to: number, from = i): Token => {
    tok.malformed = reason;
    tok.start = from;
    tok.end = to;
    tok.text = text.slice(from, to);
    tok.norm = tok.text;
    tok.blob = blob;
    return tok;
  };
  // "5e-1", "1e9", "5^2": exponents; "1/2": fractions (a d/d/d date is not money either).
  const exp = /(?:[eE][+-]?|\^)\d+/y;
  exp.lastIndex = end;
  const e = exp.exec(text);
  if (e && !isAlnum(text[end + e[0].length])) return refuse('exponent', end + e[0].length);
  const slash = /(?:\/\d+)+/y;
  slash.lastIndex = end;
  const f = slash.exec(text);
  if (f) return refuse('fraction', end + f[0].length);
  if (sign) return refuse('sign', end);
  if (text[i - 1] === '(' && text[end] === ')') return refuse('parenthesised', end);
  // Shapes around the digits that make them something other than one stated amount:
  // ",5" / ".5." (a separator glued before), "1_000", "5*2", "[5]", a range "5-10" / "5 - 3",
  // and "10 00" (two runs that are not a thousands group).
  if ('.,'.includes(text[i - 1] ?? 'x') && text[i - 1] !== undefined && !isDigit(text[i - 2])) return refuse('not_one_number', end + (text[end] === '.' ? 1 : 0), i - 1);
  if (text[end] === '_' && isDigit(text[end + 1])) return refuse('not_one_number', end + /^[_\d]+/.exec(text.slice(end))![0].length);
  const glued = /[*\u00D7]\d+/y;
  glued.lastIndex = end;
  const g = glued.exec(text);
  if (g) return refuse('not_one_number', end + g[0].length);
  if (text[i - 1] === '[' && text[end] === ']') return refuse('not_one_number', end + 1, i - 1);
  const range = /\s?[-\u2013\u2014]\s?\d{1,6}(?![\d-])/y;
  range.lastIndex = end;
  const r = blob.length <= 6 && !text.slice(Math.max(0, i - 1), i).match(/[-\u2013\u2014]/) ? range.exec(text) : null;
  if (r) return refuse('not_one_number', end + r[0].length);
  const split = / \d{1,2}(?![\d.,\p{L}])/uy;
  split.lastIndex = end;
  const sp = blob.length <= 3 ? split.exec(text) : null;
  if (sp && !/^ \d{1,2}\s*(?:[-:]|am|pm|h\b)/i.test(text.slice(end))) return refuse('not_one_number', end + sp[0].length);

  let intPart = blob;
  let frac: string | undefined;
  let grouped = false;
  let value: string;
  if (/^\d+$/.test(blob)) {
    // "1,5k" / "2,5m": a decimal comma is unambiguous when a scale letter follows.
    const comma = /,(\d{1,2})(?=(?:k|m|mn|bn)(?![A-Za-z0-9]))/iy;
    comma.lastIndex = end;
    const c = comma.exec(text);
    if (c) {
      frac = c[1]!;
      end += c[0].length;
      blob += c[0];
    }
    value = normalizeDecimal(intPart, frac ?? '');
  } else if (/^\d+,\d{1,2}$/.test(blob) && at(SCALE_SUFFIX, text, end)) {
    // "1,5k" / "2,5m": a decimal comma is unambiguous when a scale letter follows.
    [intPart, frac] = blob.split(',') as [string, string];
    value = normalizeDecimal(intPart, frac);
  } else {
    // A glued symbol says how its currency is written ("R$ 120,00", "€1.000,50").
    const own = prefix ? styleFor(prefix.code, undefined) : undefined;
    const reading = readDigits(blob, own && (own.commaDecimal || own.indian) ? own : style);
    if (!reading.ok) return refuse(reading.reason, end);
    value = reading.value;
    // Thousands separators left once a decimal part is taken off ("1,000.50", "1.000,50").
    grouped = /[.,]/.test(blob.replace(/[.,]\d{1,2}$/, ''));
    intPart = value.split('.')[0]!;
    frac = value.split('.')[1];
  }

  if (!grouped && frac === undefined) {
    const spaced = lexDigitGroups(text, j, intPart);
    if (spaced) {
      end = spaced.end;
      if (spaced.kind === 'thousands') {
        intPart = spaced.digits;
        tok.grouped = true;
        // "10 000,50": the decimals after space-grouped thousands.
        const dec = /[.,](\d{1,2})(?!\d)/y;
        dec.lastIndex = end;
        const d = dec.exec(text);
        if (d) {
          frac = d[1]!;
          end += d[0].length;
        }
        value = normalizeDecimal(intPart, frac ?? '');
      } else {
        intPart = spaced.digits;
        tok.idLike = true;
      }
    }
  } else if (grouped) tok.grouped = true;
  tok.blob = text.slice(j, end);
  tok.digits = intPart;
  if (!tok.idLike && !grouped && frac === undefined && intPart.length > 1 && intPart.startsWith('0')) tok.idLike = true;

  let m: RegExpExecArray | null;
  if (!tok.idLike && (m = at(ORDINAL, text, end)) && frac === undefined) {
    tok.ordinal = true;
    end += m[0].length;
  } else if (!tok.idLike && (m = at(SCALE_SUFFIX, text, end))) {
    const power = { k: 3, m: 6, mn: 6, bn: 9 }[m[1]!.toLowerCase() as 'k' | 'm' | 'mn' | 'bn'];
    value = shiftDecimal(value, power);
    tok.scaled = true;
    end += m[0].length;
  }
  if (!tok.idLike) {
    const suffix = SUFFIX_SYMBOLS[text[end] ?? ''];
    if (suffix && !prefix) {
      tok.currency = suffix;
      end += 1;
    }
    if (text.startsWith('/=', end) || text.startsWith('/-', end)) end += 2; // "500/=", "500/-": East African shorthand for whole shillings
  }
  if (prefix) tok.currency = prefix.code;
  tok.value = value;
  tok.text = text.slice(i, end);
  tok.norm = value;
  tok.end = end;
  return tok;
}

/**
 * Space- or dash-separated digit groups after a first group: "5 000" is five thousand;
 * "0712 345 678" and "4512 3456 789" are identifiers (phone or meter numbers) kept whole.
 */
function lexDigitGroups(text: string, j: number, first: string): { kind: 'thousands' | 'id'; digits: string; end: number } | undefined {
  const groups: Array<{ digits: string; end: number; sep: string }> = [];
  let pos = j + first.length;
  const re = /\d+/y;
  for (;;) {
    const sep = text[pos];
    if (sep !== ' ' && sep !== '-') break;
    re.lastIndex = pos + 1;
    const g = re.exec(text);
    if (!g || g.index !== pos + 1) break;
    const after = text[pos + 1 + g[0].length];
    if (after !== undefined && /[\p{L}:]/u.test(after)) break; // "5 2nd", "3 12:30"
    groups.push({ digits: g[0], end: pos + 1 + g[0].length, sep });
    pos = pos + 1 + g[0].length;
    if (groups.length > 6) break;
  }
  if (!groups.length) return undefined;

  // Identifiers: a leading-zero national number up to 12 digits, three or more short groups, or two
  // groups of five ("98123 45678", an Indian mobile as written).
  let digits = first;
  let end = -1;
  let used = 0;
  for (const g of groups) {
    if (g.digits.length < 2 || g.digits.length > 5 || digits.length + g.digits.length > 16) break;
    if (first.startsWith('0') && digits.length + g.digits.length > 12) break;
    digits += g.digits;
    end = g.end;
    used++;
  }
  const fives = used === 1 && first.length === 5 && digits.length === 10;
  const id = end > 0 && (first.startsWith('0') ? digits.length >= 9 : (used >= 2 || fives) && digits.length >= 8) ? { kind: 'id' as const, digits, end } : undefined;
  // Thousands: 1-3 digits without a leading zero, then exactly three digits per group, spaces only;
  // unless more groups follow that make it a number written in pairs ("77 123 45 67", a Senegalese mobile).
  if (first.length <= 3 && !first.startsWith('0')) {
    let k = 0;
    for (; k < groups.length && groups[k]!.digits.length === 3 && groups[k]!.sep === ' '; k++);
    if (k > 0 && (k === groups.length || !id)) return { kind: 'thousands', digits: first + groups.slice(0, k).map((g) => g.digits).join(''), end: groups[k - 1]!.end };
  }
  return id;
}
