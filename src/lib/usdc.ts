import { formatUnits } from 'viem';
import { STABLECOIN_DECIMALS } from '../fx/rates.js';

/** "2,000.00 USDC" / "38.68472 USDC": grouped, at least two decimals, never rounded (exact base units). */
export function formatUsdc(v: bigint | string): string {
  const [int, frac = ''] = formatUnits(BigInt(v), STABLECOIN_DECIMALS).split('.');
  return `${int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac.padEnd(2, '0')} USDC`;
}
