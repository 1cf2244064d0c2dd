import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseUnits } from 'viem';
import { z } from 'zod';
import { wordTable } from '../lib/word-table.js';

/**
 * The biller catalogue's shape (data/billers.json, the shipped data): who can be paid, in
 * which currency, how their customer numbers look, their limits. `loadBillerCatalogue` reads
 * and zod-validates the file; everything else in the bills module works on the parsed value.
 */

export const BillerCategory = z.enum(['electricity', 'airtime', 'water', 'tv', 'internet']);
export type BillerCategory = z.infer<typeof BillerCategory>;

export const AccountLabel = z.enum([
  'Meter number',
  'Account number',
  'Smartcard number',
  'IUC number',
  'Phone number',
  'Customer number',
]);
export type AccountLabel = z.infer<typeof AccountLabel>;

/** Amounts in the catalogue are decimal strings in the biller's currency (never floats). */
const CatalogueAmount = z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be a decimal string with at most 2 decimals');

const RegexSource = z.string().min(2).refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, 'must be a valid regular expression');

export const BillerAccount = z.object({
  label: AccountLabel,
  /** Tested against the number with spaces, dashes, dots and brackets removed. */
  pattern: RegexSource,
  /** Human description of the format, used in error messages ("11 digits"). */
  hint: z.string().min(1).max(80),
  example: z.string().min(3).max(32),
});
export type BillerAccount = z.infer<typeof BillerAccount>;

export const BillerTariff = z.object({
  unit: z.literal('kWh'),
  pricePerUnit: CatalogueAmount,
});
export type BillerTariff = z.infer<typeof BillerTariff>;

export const Biller = z.object({
  id: z.string().regex(/^[a-z]{2}-[a-z0-9-]+$/, 'must look like "ng-ikedc-prepaid"'),
  name: z.string().min(2).max(80),
  country: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 code'),
  category: BillerCategory,
  currency: z.string().regex(/^[A-Z]{3}$/),
  aliases: z.array(z.string().min(1).max(60)).min(1),
  account: BillerAccount,
  minAmount: CatalogueAmount,
  maxAmount: CatalogueAmount,
  /** Prepaid electricity: the purchase returns a token to key into the meter. */
  returnsToken: z.boolean().optional(),
  tariff: BillerTariff.optional(),
  /** Key the chain module derives the on-chain collection address from. */
  collectionWallet: z.string().regex(/^billers\/[a-z0-9-]+$/),
});
export type Biller = z.infer<typeof Biller>;

/** Minor-unit digits of the currencies billers charge in. */
export const BILLER_CURRENCY_DECIMALS: Readonly<Record<string, number>> = wordTable({ NGN: 2, KES: 2, GHS: 2, ZAR: 2 });

/** Country of each biller currency; also used to turn a stated currency into a country hint. */
export const CURRENCY_COUNTRY: Readonly<Record<string, string>> = wordTable({ NGN: 'NG', KES: 'KE', GHS: 'GH', ZAR: 'ZA' });

export const BillerCatalogue = z
  .object({
    version: z.literal(1),
    billers: z.array(Biller).min(1),
  })
  .superRefine((cat, ctx) => {
    const seen = new Set<string>();
    cat.billers.forEach((b, i) => {
      const at = (field: string) => ['billers', i, field];
      if (seen.has(b.id)) ctx.addIssue({ code: 'custom', path: at('id'), message: `duplicate biller id ${b.id}` });
      seen.add(b.id);
      if (CURRENCY_COUNTRY[b.currency] !== b.country) {
        ctx.addIssue({ code: 'custom', path: at('currency'), message: `${b.id}: ${b.currency} is not the currency of ${b.country}` });
      }
      if (b.collectionWallet !== `billers/${b.id}`) {
        ctx.addIssue({ code: 'custom', path: at('collectionWallet'), message: `${b.id}: collectionWallet must be billers/${b.id}` });
      }
      if (!new RegExp(b.account.pattern).test(cleanAccount(b.account.example))) {
        ctx.addIssue({ code: 'custom', path: at('account'), message: `${b.id}: example does not match pattern` });
      }
      const decimals = BILLER_CURRENCY_DECIMALS[b.currency] ?? 2;
      if (parseUnits(b.minAmount, decimals) > parseUnits(b.maxAmount, decimals)) {
        ctx.addIssue({ code: 'custom', path: at('minAmount'), message: `${b.id}: minAmount is above maxAmount` });
      }
      if (b.tariff && parseUnits(b.tariff.pricePerUnit, decimals) <= 0n) {
        ctx.addIssue({ code: 'custom', path: at('tariff'), message: `${b.id}: tariff must be positive` });
      }
    });
  });
export type BillerCatalogue = z.infer<typeof BillerCatalogue>;

const DEFAULT_CATALOGUE_PATH = fileURLToPath(new URL('../../data/billers.json', import.meta.url));

/** Reads and validates the catalogue. A broken shipped file is a deployment bug, so this throws with the zod issues. */
export function loadBillerCatalogue(path: string = DEFAULT_CATALOGUE_PATH): BillerCatalogue {
  const raw: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const parsed = BillerCatalogue.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`invalid biller catalogue ${path}: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

/** A customer number as the catalogue patterns see it: spaces, dashes, dots and brackets dropped. */
export function cleanAccount(raw: string): string {
  return raw.trim().replace(/[\s\-().]/g, '');
}
