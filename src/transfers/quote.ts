import { formatUnits, parseUnits } from 'viem';
import { STABLECOIN_DECIMALS, type FxFailure, type FxService } from '../fx/rates.js';
import { fail, type Result } from '../lib/results.js';

/**
 * Transfer pricing, pure bigint arithmetic over the FX table:
 * source amount -> stablecoin (what the recipient's wallet receives) -> recipient's currency.
 * The fee is charged on top, in stablecoin, to the service fee wallet.
 */

export interface FeePolicy {
  /** Basis points of the stablecoin amount (50 = 0.5%), rounded down to a base unit. */
  bps: bigint;
  /** Upper bound in stablecoin base units. */
  cap: bigint;
}

/** 0.5% capped at 2 USDC (docs/money-modules.md). */
export const DEFAULT_FEE_POLICY: FeePolicy = { bps: 50n, cap: parseUnits('2', STABLECOIN_DECIMALS) };

/** How long a quote can be confirmed at its price. */
export const QUOTE_TTL_MS = 10 * 60_000;

export function transferFee(amount: bigint, policy: FeePolicy = DEFAULT_FEE_POLICY): bigint {
  if (amount <= 0n) return 0n;
  const fee = (amount * policy.bps) / 10_000n;
  return fee > policy.cap ? policy.cap : fee;
}

const CROSS_DECIMALS = 8;

/** Units of `to` per one unit of `from`, from two "units per USD" rates; 8 decimals, half up, trimmed. */
export function crossRate(fromRate: string, toRate: string): string {
  const scale = 10n ** BigInt(CROSS_DECIMALS);
  const f = parseUnits(fromRate, CROSS_DECIMALS);
  const t = parseUnits(toRate, CROSS_DECIMALS);
  if (f === 0n) throw new RangeError('zero FX rate');
  const r = (t * scale * 2n + f) / (2n * f);
  return formatUnits(r, CROSS_DECIMALS);
}

export interface TransferQuote {
  sourceCurrency: string;
  /** Normalised decimal text of what the sender typed ("5000"). */
  sourceAmount: string;
  sourceAmountMinor: bigint;
  /** Base units the recipient's wallet receives. */
  stablecoinAmount: bigint;
  fee: bigint;
  /** stablecoinAmount + fee: what leaves the sender's wallet. */
  totalDebit: bigint;
  recipientCurrency: string;
  recipientAmount: string;
  recipientAmountMinor: bigint;
  /** Units of recipientCurrency per 1 sourceCurrency. */
  rate: string;
  /** Units per 1 stablecoin of each side, from the FX table. */
  sourceRate: string;
  recipientRate: string;
}

export type QuoteFailure = FxFailure | 'amount_too_small';

export function quoteTransfer(
  fx: FxService,
  input: { amount: string; currency: string; recipientCurrency: string },
  policy: FeePolicy = DEFAULT_FEE_POLICY,
): Result<{ quote: TransferQuote }, QuoteFailure> {
  const conv = fx.toStablecoin(input.amount, input.currency);
  if (!conv.ok) return conv;
  const { conversion } = conv;
  if (conversion.stablecoinAmount <= 0n) {
    return fail('amount_too_small', `${input.amount} ${conversion.currency} is less than the smallest amount that can be sent.`, 'amount');
  }
  const out = fx.fromStablecoin(conversion.stablecoinAmount, input.recipientCurrency);
  if (!out.ok) return out;
  const fee = transferFee(conversion.stablecoinAmount, policy);
  return {
    ok: true,
    quote: {
      sourceCurrency: conversion.currency,
      sourceAmount: conversion.amount,
      sourceAmountMinor: conversion.amountMinor,
      stablecoinAmount: conversion.stablecoinAmount,
      fee,
      totalDebit: conversion.stablecoinAmount + fee,
      recipientCurrency: input.recipientCurrency.toUpperCase(),
      recipientAmount: out.amount,
      recipientAmountMinor: out.minor,
      rate: crossRate(conversion.rate, out.rate),
      sourceRate: conversion.rate,
      recipientRate: out.rate,
    },
  };
}
