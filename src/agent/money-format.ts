import type { FxService } from '../fx/rates.js';
import { formatUnits } from 'viem';
import { formatUsdc, STABLECOIN_DECIMALS } from '../lib/money.js';

/** "5,000.00 KES" from minor units; USDC amounts in the stablecoin's own decimals (src/lib/money.ts). */
export function local(fx: FxService, minor: bigint | string, currency: string): string {
  return currency === 'USDC' ? formatUsdc(minor) : fx.format(BigInt(minor), currency);
}

/** "5000.00" from minor units: `local`'s figure without grouping or code (exact; at least the decimals it shows). */
export function localDecimal(fx: FxService, minor: bigint | string, currency: string): string {
  const decimals = currency === 'USDC' ? STABLECOIN_DECIMALS : (fx.currency(currency)?.decimals ?? 2);
  const [int, frac = ''] = formatUnits(BigInt(minor), decimals).split('.');
  const shown = frac.padEnd(Math.min(decimals, 2), '0');
  return shown ? `${int}.${shown}` : int!;
}

export function shortHash(h: string): string {
  return `${h.slice(0, 10)}…${h.slice(-6)}`;
}
