import { formatUnits } from 'viem';

/**
 * The one place money is written out as text (issue 12 item 6). Amounts are bigint base units or
 * exact decimal text, never floats: grouping and padding work on the digits viem's formatUnits
 * gives, so nothing is ever rounded by accident.
 */

/** Stablecoin decimals (USDC-like token). */
export const STABLECOIN_DECIMALS = 6;

/**
 * The one wording of "more decimals than the currency has", on every door and module (payments,
 * refunds, captures, bills, transfers; h16tour: two wordings met the same mistake).
 */
export function tooManyDecimals(code: string, decimals: number): string {
  return `Amount has more decimal places than ${code.toUpperCase()} allows (${decimals}).`;
}

/** "1234567.5" -> "1,234,567.5": groups the integer part of decimal text. */
export function groupThousands(decimal: string): string {
  const [int, frac] = decimal.split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${grouped}.${frac}` : grouped;
}

/** "5,000.00 KES" from decimal text: grouped, with at least `minDecimals` decimals, never rounded. */
export function formatAmount(decimal: string, code: string, minDecimals = 2): string {
  const [int, frac = ''] = decimal.split('.');
  const shown = frac.padEnd(minDecimals, '0');
  return `${groupThousands(int!)}${shown ? `.${shown}` : ''} ${code.toUpperCase()}`;
}

/** "5,000.00 KES" / "1,500 JPY" from minor units of a currency with `decimals` decimals. */
export function formatMinor(minor: bigint, decimals: number, code: string): string {
  return formatAmount(formatUnits(minor, decimals), code, Math.min(decimals, 2));
}

/** "2,000.00 USDC" / "38.68472 USDC" from stablecoin base units. */
export function formatUsdc(base: bigint | string): string {
  return formatMinor(BigInt(base), STABLECOIN_DECIMALS, 'USDC');
}

/** Decimal text of stablecoin base units ("38.68472"), for result objects and API fields. */
export function usdcDecimal(base: bigint | string): string {
  return formatUnits(BigInt(base), STABLECOIN_DECIMALS);
}

/** Stablecoin base units rounded half up to cents, always two decimals ("38.68"). */
export function usdcCents(base: bigint): string {
  const [int, frac = ''] = formatUnits((base + 5_000n) / 10_000n, 2).split('.');
  return `${int}.${frac.padEnd(2, '0')}`;
}
