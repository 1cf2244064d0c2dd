/**
 * How people write currencies: symbols glued to numbers, ISO codes, and words. Kept as
 * data so a new currency is one line, not a new regular expression.
 */
import { wordTable } from '../../lib/word-table.js';

/** ISO codes recognised as currency words. Deliberately curated: "ALL", "TOP", "BOB" are also English. */
export const ISO_CODES: ReadonlySet<string> = new Set([
  'NGN', 'KES', 'GHS', 'ZAR', 'UGX', 'TZS', 'RWF', 'ETB', 'XOF', 'XAF', 'EGP', 'MAD', 'ZMW', 'MWK',
  'USD', 'EUR', 'GBP', 'CAD', 'AUD', 'JPY', 'CNY', 'INR', 'PHP', 'BRL', 'MXN', 'CHF', 'AED',
  'USDC', 'USDT',
]);

/**
 * Prefix symbols written before a number ("₦5,000", "KSh 500", "R150"), longest first.
 * `attachedOnly` symbols must touch the digits, and single letters must be capitals, so
 * "R" in "R 2 D 2" or a sentence-initial "N" never become money.
 */
export const PREFIX_SYMBOLS: ReadonlyArray<{ symbol: string; code: string; caseSensitive?: boolean; attachedOnly?: boolean }> = [
  { symbol: 'KShs', code: 'KES' },
  { symbol: 'KSh', code: 'KES' },
  { symbol: 'GH₵', code: 'GHS' },
  { symbol: 'GH¢', code: 'GHS' },
  { symbol: 'MX$', code: 'MXN' },
  { symbol: 'US$', code: 'USD' },
  { symbol: 'CA$', code: 'CAD' },
  { symbol: 'AU$', code: 'AUD' },
  { symbol: 'USh', code: 'UGX' },
  { symbol: 'TSh', code: 'TZS' },
  { symbol: 'CFA', code: 'XOF' },
  { symbol: 'R$', code: 'BRL' },
  { symbol: 'C$', code: 'CAD' },
  { symbol: 'A$', code: 'AUD' },
  { symbol: '₦', code: 'NGN' },
  { symbol: '₵', code: 'GHS' },
  { symbol: '₹', code: 'INR' },
  { symbol: '₱', code: 'PHP' },
  { symbol: '€', code: 'EUR' },
  { symbol: '£', code: 'GBP' },
  { symbol: '$', code: 'USD' },
  { symbol: 'R', code: 'ZAR', caseSensitive: true, attachedOnly: true },
  { symbol: 'N', code: 'NGN', caseSensitive: true, attachedOnly: true },
  // "Rs. 500", "Rs500" (India); "P500": the Philippine peso as written without its sign, and the
  // Botswana pula's own sign, so it is the writer's own currency or asked about (resolveSymbol).
  { symbol: 'Rs', code: 'INR' },
  { symbol: 'P', code: '~P', caseSensitive: true, attachedOnly: true },
];

/** Symbols written after a number with nothing between ("20$", "15€"). */
export const SUFFIX_SYMBOLS: Readonly<Record<string, string>> = wordTable({
  '$': 'USD',
  '€': 'EUR',
  '£': 'GBP',
  '₦': 'NGN',
  '₵': 'GHS',
  '₹': 'INR',
  '₱': 'PHP',
});

/**
 * Currency words and the tokens people type for them, lower-case. Values starting with
 * "~" are resolved against context (see resolveCurrencyWord).
 */
export const CURRENCY_WORDS: Readonly<Record<string, string>> = wordTable({
  naira: 'NGN',
  ksh: 'KES',
  kshs: 'KES',
  kes: 'KES',
  bob: 'KES',
  shilling: '~shilling',
  shillings: '~shilling',
  ush: 'UGX',
  tsh: 'TZS',
  cedi: 'GHS',
  cedis: 'GHS',
  ghc: 'GHS',
  rand: 'ZAR',
  rands: 'ZAR',
  // Mozambican and Angolan Portuguese plural: "50 randes".
  randes: 'ZAR',
  dollar: 'USD',
  dollars: 'USD',
  // Slang for dollars in the US, for rand in South Africa: the writer's own dollars or asked about.
  buck: '~buck',
  bucks: '~buck',
  euro: 'EUR',
  euros: 'EUR',
  pound: 'GBP',
  pounds: 'GBP',
  quid: 'GBP',
  rupee: 'INR',
  rupees: 'INR',
  peso: '~peso',
  pesos: '~peso',
  piso: 'PHP',
  shilingi: '~shilling',
  sh: '~shilling',
  shs: '~shilling',
  pesitos: '~peso',
  baros: 'MXN',
  dola: 'USD',
  dolla: 'USD',
  dolar: 'USD',
  dolares: 'USD',
  'dólar': 'USD',
  'dólares': 'USD',
  rupaye: 'INR',
  rupay: 'INR',
  rupiya: 'INR',
  rupye: 'INR',
  rs: 'INR',
  fcfa: 'XOF',
  reais: 'BRL',
  // Slang: Brazilian "conto(s)" are reais, Mexican "varos" are pesos.
  conto: 'BRL',
  contos: 'BRL',
  // Southern Brazil's "pila" ("50 pila"): reais too.
  pila: 'BRL',
  varo: 'MXN',
  varos: 'MXN',
  real: 'BRL',
  cfa: 'XOF',
  franc: 'XOF',
  francs: 'XOF',
  // French slang for the writer's own francs (or euros in France): "10 000 balles".
  balle: '~balle',
  balles: '~balle',
  usdc: 'USDC',
  usdt: 'USDT',
  '$': 'USD',
  '€': 'EUR',
  '£': 'GBP',
  '₦': 'NGN',
  '₵': 'GHS',
  '₹': 'INR',
  '₱': 'PHP',
});

/** Two-word currency names; the first word qualifies the second. */
export const CURRENCY_PHRASES: Readonly<Record<string, string>> = wordTable({
  'kenyan shillings': 'KES',
  'kenya shillings': 'KES',
  'kenyan shilling': 'KES',
  'ugandan shillings': 'UGX',
  'uganda shillings': 'UGX',
  'ugandan shilling': 'UGX',
  'tanzanian shillings': 'TZS',
  'tanzania shillings': 'TZS',
  'tanzanian shilling': 'TZS',
  'nigerian naira': 'NGN',
  'ghana cedis': 'GHS',
  'ghanaian cedis': 'GHS',
  'south african': 'ZAR',
  'us dollars': 'USD',
  'us dollar': 'USD',
  'american dollars': 'USD',
  'canadian dollars': 'CAD',
  'australian dollars': 'AUD',
  'british pounds': 'GBP',
  'pounds sterling': 'GBP',
  'indian rupees': 'INR',
  'philippine pesos': 'PHP',
  'philippine peso': 'PHP',
  'mexican pesos': 'MXN',
  'mexican peso': 'MXN',
  'brazilian reais': 'BRL',
  'brazilian real': 'BRL',
  'cfa francs': 'XOF',
  'francs cfa': 'XOF',
});

/** Multipliers people write after a number ("5k", "2.5 million", "5 grand"): power of ten. */
export const SCALE_WORDS: Readonly<Record<string, number>> = wordTable({
  k: 3,
  hundred: 2,
  thousand: 3,
  grand: 3,
  m: 6,
  mn: 6,
  mil: 6,
  million: 6,
  millions: 6,
  bn: 9,
  billion: 9,
  lakh: 5,
  lakhs: 5,
  lac: 5,
  crore: 7,
});

/** Scale words whose meaning depends on the language: Spanish/Portuguese/French "mil" is a thousand. */
const SCALE_BY_LANG: Readonly<Record<string, Readonly<Record<string, number>>>> = wordTable({
  // Argentine, Colombian and Chilean "lucas" are thousands of pesos ("2 lucas": 2,000); issue h16.
  es: wordTable({ mil: 3, millon: 6, 'millón': 6, millones: 6, luca: 3, lucas: 3, luquitas: 3 }),
  pt: wordTable({ mil: 3, milhao: 6, 'milhão': 6, milhoes: 6, 'milhões': 6 }),
  fr: wordTable({ mil: 3, mille: 3, million: 6, millions: 6 }),
  sw: wordTable({ elfu: 3, thao: 3, milioni: 6 }),
  hi: wordTable({ hazaar: 3, hazar: 3, hajar: 3, sau: 2 }),
  tl: wordTable({ libo: 3, milyon: 6 }),
});

export function scaleWord(norm: string, lang: string): number | undefined {
  return SCALE_BY_LANG[lang]?.[norm] ?? SCALE_WORDS[norm];
}

const SHILLING_CODES = new Set(['KES', 'UGX', 'TZS']);
const PESO_CODES = new Set(['MXN', 'PHP', 'COP', 'ARS', 'CLP']);
const BALLE_CODES = new Set(['XOF', 'XAF', 'EUR']);

/** A peso the message does not say which of: the engine asks. */
export const AMBIGUOUS_PESO = '?PESO';
/** A currency word or sign whose meaning depends on where the writer is ("bucks", "P500"), written by someone it names nothing certain for: the engine asks. */
export const AMBIGUOUS_CURRENCY = '?CURRENCY';

/**
 * "shillings" are the user's own shillings when they hold UGX or TZS, else KES; "pesos" are
 * the user's own pesos, Philippine pesos when the message says so, and otherwise asked
 * about (AMBIGUOUS_PESO): MXN and PHP differ thirtyfold.
 */
export function resolveCurrencyWord(value: string, localCurrency: string, messageSaysPhp: boolean): string {
  if (value === '~shilling') return SHILLING_CODES.has(localCurrency) ? localCurrency : 'KES';
  if (value === '~peso') return PESO_CODES.has(localCurrency) ? localCurrency : messageSaysPhp ? 'PHP' : AMBIGUOUS_PESO;
  if (value === '~balle') return BALLE_CODES.has(localCurrency) ? localCurrency : AMBIGUOUS_CURRENCY;
  // "bucks" are dollars only to someone who holds dollars.
  if (value === '~buck') return localCurrency === 'USD' ? 'USD' : AMBIGUOUS_CURRENCY;
  return resolveSymbol(value, localCurrency);
}

/** "P500": Philippine pesos from a peso account, pula from a pula account, otherwise asked about. */
export function resolveSymbol(code: string, localCurrency: string): string {
  if (code === '~P') return localCurrency === 'PHP' || localCurrency === 'BWP' ? localCurrency : AMBIGUOUS_CURRENCY;
  return code;
}
