/**
 * Phone numbers, in one place (issue 12 item 6): E.164 spelling, the calling codes of the
 * countries the service serves, and how long a number is by its calling code. Transfers resolve
 * a recipient with it, bills complete and route airtime numbers with it, and the local engine's
 * lexer uses it to tell where a spaced number ends.
 */
import { wordTable } from './word-table.js';

/** "+" then 7 to 15 digits, the first not 0. */
export const E164 = /^\+[1-9]\d{6,14}$/;

/** International calling codes of the countries billers and transfers serve. */
export const COUNTRY_CALLING_CODE: Readonly<Record<string, string>> = wordTable({ NG: '234', KE: '254', GH: '233', ZA: '27' });
/**
 * Countries whose national numbers are written with a trunk "0" ("0917 123 4567", "09812345678") and that
 * transfers serve though no biller does: a transfer to such a number completes it with the sender's country.
 */
const TRANSFER_CALLING_CODE: Readonly<Record<string, string>> = wordTable({ ...COUNTRY_CALLING_CODE, PH: '63', IN: '91', SN: '221', BR: '55', MX: '52' });

/**
 * Mobiles people write without a trunk 0, by country: India's ten digits ("9812345678"), Senegal's
 * nine ("77 123 45 67"), Brazil's eleven with the area code ("11 91234-5678"), Mexico's ten ("55 1234 5678").
 */
const NO_TRUNK_MOBILE: Readonly<Record<string, RegExp>> = wordTable({ IN: /^[6-9]\d{9}$/, SN: /^7[05-8]\d{7}$/, BR: /^[1-9]{2}9\d{8}$/, MX: /^[1-9]\d{9}$/ });
/** The sender's currency says which national mobiles to read. */
const CURRENCY_MOBILE_COUNTRY: Readonly<Record<string, string>> = wordTable({ INR: 'IN', XOF: 'SN', BRL: 'BR', MXN: 'MX' });

/** A mobile written in its country's national form without a trunk 0, for a sender of that currency. */
export function isNationalMobile(digits: string, currency: string): boolean {
  const country = CURRENCY_MOBILE_COUNTRY[currency];
  return country !== undefined && NO_TRUNK_MOBILE[country]!.test(digits);
}

/** Digits (calling code included) of full numbers by calling code, for the lexer. */
const E164_LENGTH: ReadonlyArray<[string, number]> = [
  ['234', 13], ['254', 12], ['233', 12], ['256', 12], ['255', 12], ['250', 12], ['251', 12], ['260', 12],
  ['221', 12], ['225', 13], ['237', 12], ['212', 12], ['20', 12], ['27', 11], ['1', 11], ['44', 12],
  ['91', 12], ['63', 12], ['52', 12], ['55', 13], ['33', 11], ['49', 13],
];

/** Drops the separators people type: spaces, dashes, dots and brackets. */
export function cleanPhone(raw: string): string {
  return raw.trim().replace(/[\s\-().]/g, '');
}

/** E.164 from "+254 712-345-678" or, with the sender's country, "0712345678"; else undefined. */
export function toE164(text: string, country?: string): string | undefined {
  const cleaned = cleanPhone(text);
  if (E164.test(cleaned)) return cleaned;
  const cc = country ? TRANSFER_CALLING_CODE[country.toUpperCase()] : undefined;
  // A mobile written without a trunk 0: "9812345678" (India), "771234567" (Senegal), "11912345678" (Brazil).
  const noTrunk = country ? NO_TRUNK_MOBILE[country.toUpperCase()] : undefined;
  if (cc && noTrunk?.test(cleaned)) return `+${cc}${cleaned}`;
  if (cc && /^0\d{6,13}$/.test(cleaned)) {
    const e164 = `+${cc}${cleaned.slice(1)}`;
    if (E164.test(e164)) return e164;
  }
  return undefined;
}

/**
 * A number already checked against a biller's pattern, spelled with its "+": a national one
 * ("0803…") gets the country's calling code, an international one without "+" just the "+".
 */
export function withCallingCode(cleaned: string, country: string): string {
  const cc = COUNTRY_CALLING_CODE[country];
  if (!cc || cleaned.startsWith('+')) return cleaned;
  return cleaned.startsWith('0') ? `+${cc}${cleaned.slice(1)}` : `+${cleaned}`;
}

/** The country and national significant number of "+2348031234567", "2348031234567" or (with a country) "08031234567". */
export function splitPhone(raw: string, country?: string): { country: string; national: string } | undefined {
  const digits = cleanPhone(raw);
  const intl = digits.replace(/^\+/, '');
  if (digits.startsWith('+') || (!digits.startsWith('0') && digits.length >= 11)) {
    for (const [c, cc] of Object.entries(COUNTRY_CALLING_CODE)) if (intl.startsWith(cc)) return { country: c, national: intl.slice(cc.length) };
    return undefined;
  }
  if (digits.startsWith('0') && country) return { country, national: digits.slice(1) };
  return undefined;
}

/** How many digits a full number starting with these digits has, when its calling code is known. */
export function expectedE164Length(digits: string): number | undefined {
  for (const [code, len] of E164_LENGTH) if (digits.startsWith(code)) return len;
  return undefined;
}
