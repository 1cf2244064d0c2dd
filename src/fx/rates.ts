import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { formatUnits, parseUnits } from 'viem';
import { fail, type Result } from '../lib/results.js';
import { STABLECOIN_DECIMALS, formatMinor, tooManyDecimals } from '../lib/money.js';

/** Stablecoin decimals, defined with the money formatters (src/lib/money.ts). */
export { STABLECOIN_DECIMALS };
/** Rates are held as fixed-point integers with this many decimals. */
const RATE_DECIMALS = 8;

const DecimalString = z.string().regex(/^\d+(\.\d+)?$/);

export const CurrencyInfo = z.object({
  rate: DecimalString,
  decimals: z.number().int().min(0).max(6),
  symbol: z.string(),
  name: z.string(),
  country: z.string().length(2).optional(),
});
export type CurrencyInfo = z.infer<typeof CurrencyInfo>;

export const FxTable = z.object({
  base: z.literal('USD'),
  asOf: z.string(),
  note: z.string().optional(),
  currencies: z.record(z.string().regex(/^[A-Z]{2,8}$/), CurrencyInfo),
});
export type FxTable = z.infer<typeof FxTable>;

export const DEFAULT_FX_PATH = new URL('../../data/fx-rates.json', import.meta.url);

export function loadFxTable(file: string | URL = DEFAULT_FX_PATH): FxTable {
  return FxTable.parse(JSON.parse(readFileSync(file, 'utf8')));
}

export type FxFailure = 'unsupported_currency' | 'too_many_decimals' | 'invalid_amount';

/** A locked conversion: the amount in the currency's minor units and in stablecoin base units. */
export interface Conversion {
  currency: string;
  /** Normalised decimal text of the amount ("12.5"). */
  amount: string;
  amountMinor: bigint;
  stablecoinAmount: bigint;
  /** Units of `currency` per 1 stablecoin, as decimal text. */
  rate: string;
}

/** Integer division rounding half up (both operands positive). */
function divRound(n: bigint, d: bigint): bigint {
  return (n * 2n + d) / (2n * d);
}

export class FxService {
  constructor(readonly table: FxTable) {}

  currency(code: string): CurrencyInfo | undefined {
    return this.table.currencies[code.toUpperCase()];
  }

  supported(): string[] {
    return Object.keys(this.table.currencies);
  }

  /** Currency for a country code, if one is listed (default for new accounts). */
  currencyForCountry(country: string): string | undefined {
    const c = country.toUpperCase();
    return Object.entries(this.table.currencies).find(([, v]) => v.country === c)?.[0];
  }

  /** Parses a decimal amount in `code`, rejecting more decimals than the currency has. */
  parseAmount(amount: string, code: string): Result<{ minor: bigint; info: CurrencyInfo }, FxFailure> {
    const info = this.currency(code);
    if (!info) return fail('unsupported_currency', `Unsupported currency: ${code}. Supported: ${this.supported().join(', ')}.`, 'currency');
    if (!/^\d+(\.\d+)?$/.test(amount)) return fail('invalid_amount', `Invalid amount: ${amount}.`, 'amount');
    const frac = amount.split('.')[1] ?? '';
    if (frac.replace(/0+$/, '').length > info.decimals) {
      return fail('too_many_decimals', tooManyDecimals(code, info.decimals), 'amount');
    }
    return { ok: true, minor: parseUnits(amount, info.decimals), info };
  }

  /** Converts an amount in `code` to stablecoin base units at the table's rate (rounded half up). */
  toStablecoin(amount: string, code: string): Result<{ conversion: Conversion }, FxFailure> {
    const parsed = this.parseAmount(amount, code);
    if (!parsed.ok) return parsed;
    const { minor, info } = parsed;
    const rate = parseUnits(info.rate, RATE_DECIMALS);
    const stable = divRound(minor * 10n ** BigInt(STABLECOIN_DECIMALS + RATE_DECIMALS), rate * 10n ** BigInt(info.decimals));
    return {
      ok: true,
      conversion: {
        currency: code.toUpperCase(),
        amount: formatUnits(minor, info.decimals),
        amountMinor: minor,
        stablecoinAmount: stable,
        rate: info.rate,
      },
    };
  }

  /** Stablecoin base units to minor units of `code` (rounded half up). */
  fromStablecoin(stable: bigint, code: string): Result<{ minor: bigint; amount: string; rate: string }, FxFailure> {
    const info = this.currency(code);
    if (!info) return fail('unsupported_currency', `Unsupported currency: ${code}.`, 'currency');
    const rate = parseUnits(info.rate, RATE_DECIMALS);
    const minor = divRound(stable * rate * 10n ** BigInt(info.decimals), 10n ** BigInt(STABLECOIN_DECIMALS + RATE_DECIMALS));
    return { ok: true, minor, amount: formatUnits(minor, info.decimals), rate: info.rate };
  }

  /** Human text like "KSh 5,000.00 (KES)". */
  format(minor: bigint, code: string): string {
    const info = this.currency(code);
    return formatMinor(minor, info?.decimals ?? 2, code);
  }
}
