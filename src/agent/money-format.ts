import type { FxService } from '../fx/rates.js';
import { formatUsdc } from '../lib/money.js';

/** "5,000.00 KES" from minor units; USDC amounts in the stablecoin's own decimals (src/lib/money.ts). */
export function local(fx: FxService, minor: bigint | string, currency: string): string {
  return currency === 'USDC' ? formatUsdc(minor) : fx.format(BigInt(minor), currency);
}

export function shortHash(h: string): string {
  return `${h.slice(0, 10)}…${h.slice(-6)}`;
}
