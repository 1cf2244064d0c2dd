/**
 * What an action would spend, in policy terms: its kind, its amount in the currency asked and in
 * USD (the FX table transfers use), and its recipient. The agent values its tool calls with these
 * (src/agent/policy-hook.ts).
 */
import { formatUnits } from 'viem';
import type { FxService } from '../fx/rates.js';
import type { PolicyAction } from './policy-schemas.js';

export interface Amount {
  currency: string;
  minor: bigint;
  decimals: number;
  /** USD value in micro-dollars (6 decimals). */
  usdMicro: bigint;
}

export interface Spend {
  action: PolicyAction;
  /** Money leaving the person's wallet (caps and threshold apply); absent: none, or not known. */
  amount?: Amount;
  /** The recipient as asked (transfers). */
  recipient?: string;
}

export const USD_DECIMALS = 6;

/** An amount in `currency` and its USD value at the FX table's rate; undefined when it cannot be read. */
export function amountOf(fx: FxService, amount: string, currency: string): Amount | undefined {
  const conv = fx.toStablecoin(amount, currency);
  if (!conv.ok) return undefined;
  const info = fx.currency(currency)!;
  return { currency: conv.conversion.currency, minor: conv.conversion.amountMinor, decimals: info.decimals, usdMicro: conv.conversion.stablecoinAmount };
}

/** "12.50 USD" from micro-dollars; "5,000.00 KES"-like text from minor units. */
export function usdText(micro: bigint): string {
  return `${trim(formatUnits(micro, USD_DECIMALS), 2)} USD`;
}
export function minorText(minor: bigint, decimals: number, currency: string): string {
  return `${trim(formatUnits(minor, decimals), Math.min(decimals, 2))} ${currency}`;
}
function trim(s: string, keep: number): string {
  const [i, f = ''] = s.split('.');
  const frac = f.replace(/0+$/, '').padEnd(keep, '0');
  return frac ? `${i}.${frac}` : i!;
}
