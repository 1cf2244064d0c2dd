import { normalizeDecimal } from './decimal.js';

/**
 * The one number reader: a run of digits and separators as typed ("1,000.50", "1.000,50",
 * "1,00,000", "2.5") becomes an exact decimal string, or is refused. It never guesses:
 * a shape that could mean two different amounts in the writer's convention is refused, and
 * the reply quotes it back (numbers exact or refused, issue 11).
 */

/** How the writer separates thousands and decimals; decided by the currency, then the language. */
export type NumberStyle = {
  /** "1.000,50": dot groups thousands, comma marks decimals (EUR, BRL, XOF, French, Portuguese). */
  commaDecimal: boolean;
  /** "1,00,000": Indian lakh grouping (INR, Hindi-English). */
  indian: boolean;
  /**
   * "R350,00": a comma before exactly two digits is a decimal comma, though "1,500" still groups
   * thousands (ZAR: South Africa writes both). Two digits after a comma can be no thousands group.
   */
  commaCents?: boolean;
};

export const DEFAULT_STYLE: NumberStyle = { commaDecimal: false, indian: false };

/** Currencies whose writers use a decimal comma and dot (or space) thousands. */
export const COMMA_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['EUR', 'BRL', 'XOF', 'XAF']);
/** Currencies written with a decimal comma for cents and a comma for thousands alike (see `commaCents`). */
export const COMMA_CENTS_CURRENCIES: ReadonlySet<string> = new Set(['ZAR']);

export function styleFor(currency: string | undefined, lang: string | undefined): NumberStyle {
  if (currency) {
    if (COMMA_DECIMAL_CURRENCIES.has(currency)) return { commaDecimal: true, indian: false };
    if (currency === 'INR') return { commaDecimal: false, indian: true };
    return { commaDecimal: false, indian: lang === 'hi', commaCents: COMMA_CENTS_CURRENCIES.has(currency) };
  }
  return { commaDecimal: lang === 'fr' || lang === 'pt', indian: lang === 'hi' };
}

export type NumberReading = { ok: true; value: string } | { ok: false; reason: NumberRefusal };

/** Why a numeric run was not used as an amount. */
export type NumberRefusal =
  | 'ambiguous_separator'
  | 'bad_grouping'
  | 'repeated_separator'
  | 'exponent'
  | 'fraction'
  | 'sign'
  | 'parenthesised'
  /** A range, a product, an underscore or a stray separator around the digits ("5-10", "5*2", "1_000", ",5"). */
  | 'not_one_number';

const PLAIN = /^\d+$/;
const COMMA_GROUPS = /^\d{1,3}(?:,\d{3})+(?:\.(\d+))?$/;
const DOT_GROUPS = /^\d{1,3}(?:\.\d{3})+(?:,(\d+))?$/;
const INDIAN_GROUPS = /^\d{1,2}(?:,\d{2})+,\d{3}(?:\.(\d+))?$/;
const DOT_DECIMAL = /^(\d+)\.(\d+)$/;
const COMMA_DECIMAL = /^(\d+),(\d+)$/;

/**
 * Reads digits with separators. `blob` is only digits, dots and commas ("1.000,50").
 * Trailing sentence punctuation must already be removed by the caller.
 */
export function readDigits(blob: string, style: NumberStyle = DEFAULT_STYLE): NumberReading {
  if (PLAIN.test(blob)) return { ok: true, value: normalizeDecimal(blob) };
  if (/[.,]{2,}/.test(blob) || /^[.,]|[.,]$/.test(blob)) return { ok: false, reason: 'repeated_separator' };

  let m: RegExpExecArray | null;
  if ((m = COMMA_GROUPS.exec(blob))) {
    // "1,000" is one thousand everywhere the service is used; "1,000.50" is unambiguous.
    const [int, frac = ''] = blob.split('.');
    return { ok: true, value: normalizeDecimal(int!.replace(/,/g, ''), frac) };
  }
  if ((m = DOT_GROUPS.exec(blob))) {
    const [int, frac = ''] = blob.split(',');
    // "0.001" is a decimal in every convention.
    if (int!.startsWith('0')) return m[1] === undefined && int!.split('.').length === 2 ? { ok: true, value: normalizeDecimal('0', int!.slice(2)) } : { ok: false, reason: 'bad_grouping' };
    const groups = int!.split('.').length - 1;
    // "1.000.000" can only be thousands; "1.000" and "1.000,50" only where the currency writes so.
    if (style.commaDecimal || (groups >= 2 && m[1] === undefined)) return { ok: true, value: normalizeDecimal(int!.replace(/\./g, ''), frac) };
    if (groups === 1 && m[1] === undefined) {
      // "1.500" with a dot-decimal currency: one and a half, or fifteen hundred? Ask.
      return { ok: false, reason: 'ambiguous_separator' };
    }
    return { ok: false, reason: 'ambiguous_separator' };
  }
  if ((m = INDIAN_GROUPS.exec(blob))) {
    if (!style.indian) return { ok: false, reason: 'bad_grouping' };
    const [int, frac = ''] = blob.split('.');
    return { ok: true, value: normalizeDecimal(int!.replace(/,/g, ''), frac) };
  }
  if ((m = DOT_DECIMAL.exec(blob))) return { ok: true, value: normalizeDecimal(m[1]!, m[2]!) };
  if ((m = COMMA_DECIMAL.exec(blob))) {
    // "120,00" / "2,5": a decimal comma where the currency writes one; elsewhere it may be a typo for thousands.
    if (style.commaDecimal && m[2]!.length <= 2) return { ok: true, value: normalizeDecimal(m[1]!, m[2]!) };
    if (style.commaCents && m[2]!.length === 2) return { ok: true, value: normalizeDecimal(m[1]!, m[2]!) };
    return { ok: false, reason: 'ambiguous_separator' };
  }
  return { ok: false, reason: 'bad_grouping' };
}

/** The sentence a refused number gets, quoting it back. */
export function refusedNumberReply(quoted: string): string {
  return `I couldn't read "${quoted}" as an amount, so nothing was done. Please write the amount in plain digits, e.g. 5000, 5,000 or 12.50.`;
}
