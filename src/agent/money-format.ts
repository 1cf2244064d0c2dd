import { formatUnits } from 'viem';
import { STABLECOIN_DECIMALS, type FxService } from '../fx/rates.js';
import { formatUsdc as usdc } from '../lib/usdc.js';

/** "38.68472 USDC" (see lib/usdc.ts). */
export { usdc };

/** Decimal text of base units, for result objects ("38.68472"). */
export function usdcText(v: bigint | string): string {
  return formatUnits(BigInt(v), STABLECOIN_DECIMALS);
}

/** "5,000.00 KES" from minor units. */
export function local(fx: FxService, minor: bigint | string, currency: string): string {
  return currency === 'USDC' ? usdc(minor) : fx.format(BigInt(minor), currency);
}

export function shortHash(h: string): string {
  return `${h.slice(0, 10)}…${h.slice(-6)}`;
}
