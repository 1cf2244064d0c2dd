/**
 * What the merchant tools over one of the caller's payments share (refund_payment,
 * capture_payment, void_payment; docs/agent.md "Merchant tools"): the payment id argument, the
 * lookup scoped to the caller's account and mode, and amounts between the payment's currency and
 * the stablecoin at the rate locked when the payment was created. The tools call the same core
 * use cases as `POST /v1/payments/:id/refunds`, `/capture` and `/void`.
 */
import { formatUnits, parseUnits } from 'viem';
import { z } from 'zod';
import type { Payment } from '../../payments/payments.js';
import { tooManyDecimals, usdcDecimal } from '../../lib/money.js';
import { CurrencyCode, DecimalAmount } from '../../lib/money-input.js';
import { callerLivemode, type ToolAction, type ToolContext, type ToolDeps, type ToolFailure } from './contract.js';

/** The stablecoin's code and decimals (amounts the person may name in it, "5 USDC"). */
const STABLECOIN = 'USDC';
const STABLECOIN_DECIMALS = 6;

/** A payment id as written ("pay_..."); an id that is not the caller's answers "no such payment". */
export const PaymentIdArg = z
  .string()
  .trim()
  .regex(/^pay_[0-9A-Za-z]{1,64}$/, 'must be a payment id like "pay_..."')
  .describe('The payment id (pay_...) exactly as the user wrote it.');

export const OptionalAmount = DecimalAmount.optional().describe(
  "Amount as a plain decimal string, in the payment's currency unless `currency` says USDC. Omit for everything.",
);
export const OptionalCurrency = CurrencyCode.optional().describe(
  "Only when the user named one: the payment's own currency, or USDC for a stablecoin amount.",
);

/** The payment, when it is the caller's (in the mode of the key the call came through). */
export async function callerPayment(deps: Pick<ToolDeps, 'payments' | 'livemodeOfKey'>, ctx: ToolContext, id: string, action: ToolAction): Promise<{ ok: true; payment: Payment } | ToolFailure> {
  const livemode = await callerLivemode(ctx, deps.livemodeOfKey);
  const p = await deps.payments.getForAccount(ctx.accountId, id, livemode);
  // Another account's payment answers exactly as an unknown id: nothing is learnt about it.
  return p ? { ok: true, payment: p } : { ok: false, action, reason: 'unknown_payment', message: `No such payment: ${id}.` };
}

/** Stablecoin base units -> the payment's currency at its locked ratio (rounded down). */
export function baseToCurrency(p: Payment, base: bigint, decimals: number): string {
  const value = (base * parseUnits(p.amount, decimals)) / BigInt(p.stablecoinAmount);
  return formatUnits(value, decimals);
}

/** The payment's currency amount -> stablecoin base units at its locked ratio (as the capture route does). */
export function currencyToBase(p: Payment, amount: string): bigint {
  const scale = (n: string) => parseUnits(n, 8);
  return (BigInt(p.stablecoinAmount) * scale(amount)) / scale(p.amount);
}

export type Amounts = { ok: true; amount: string; base: bigint } | ToolFailure;

/**
 * An amount the person named, read in the payment's terms: in its currency (the default) or in
 * the stablecoin ("5 USDC" of a USD payment), whose currency amount must then be exact. Any other
 * currency is refused: a refund or capture is never converted at today's rate.
 */
export function namedAmount(p: Payment, decimals: number, amount: string, currency: string | undefined, action: ToolAction): Amounts {
  const code = currency?.toUpperCase();
  if (code === undefined || code === p.currency.toUpperCase()) {
    const scaled = amount.split('.')[1]?.length ?? 0;
    if (scaled > decimals) return { ok: false, action, reason: 'invalid_amount', message: tooManyDecimals(p.currency, decimals) };
    return { ok: true, amount, base: currencyToBase(p, amount) };
  }
  if (code === STABLECOIN) {
    const base = parseUnits(amount, STABLECOIN_DECIMALS);
    const inCurrency = baseToCurrency(p, base, decimals);
    if (currencyToBase(p, inCurrency) !== base) {
      return { ok: false, action, reason: 'invalid_amount', message: `${amount} ${STABLECOIN} is not an exact amount of ${p.currency} at this payment's rate; say the amount in ${p.currency}.` };
    }
    return { ok: true, amount: inCurrency, base };
  }
  return { ok: false, action, reason: 'unsupported_currency', message: `Payment ${p.id} is in ${p.currency}: say the amount in ${p.currency} (or ${STABLECOIN}).` };
}

/** The payment's money fields as the tools report them (decimal text; stablecoin fields as the API shows them). */
export function paymentFigures(p: Payment): Record<string, unknown> {
  return {
    id: p.id,
    status: p.status,
    amount: Number(p.amount),
    currency: p.currency,
    stablecoin_amount: usdcDecimal(p.stablecoinAmount),
    amount_refunded: Number(p.amountRefunded ?? '0'),
    ...(p.captureMethod === 'manual'
      ? {
          capture_method: 'manual',
          amount_capturable: usdcDecimal(p.amountCapturable ?? '0'),
          amount_captured: usdcDecimal(p.amountCaptured ?? '0'),
          amount_voided: usdcDecimal(p.amountVoided ?? '0'),
          capture_before: p.captureBefore ?? null,
        }
      : {}),
    livemode: p.livemode !== false,
  };
}

/** "5.00 USD (5 USDC)": both sides, so the person sees what moves on-chain. */
export function bothSides(amount: string, currency: string, base: bigint): string {
  const shown = currency.toUpperCase() === STABLECOIN ? `${amount} ${currency}` : `${amount} ${currency} (${usdcDecimal(base)} ${STABLECOIN})`;
  return shown;
}

/** "pay_8fK2…x1" is long: the full id stays in the result, the sentence names it whole too (it is what was confirmed). */
export function paymentLabel(p: Payment): string {
  return p.description ? `${p.id} ("${p.description}")` : p.id;
}

/** The three tools' line in the Claude engine's overview (one group). */
export const MERCHANT_GROUP = "payments the user received, named by their pay_ id (refund a settled one; capture or void what an authorized one holds)";
