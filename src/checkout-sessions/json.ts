/**
 * The public JSON of a checkout session (interface 2.2) rendered from its view: exactly the
 * interface's fields, the chain the page pays on, the deposit address while pending, and what a
 * manual-capture session holds. Nothing private (the way back, the recipient, the receipt).
 */
import { usdcDecimal } from '../lib/money.js';
import type { CheckoutSessionView, CheckoutView } from './view.js';

export function checkoutJson(v: CheckoutSessionView, opts: { deposit?: boolean } = {}): CheckoutView {
  const d = opts.deposit === false ? undefined : v.deposit;
  return {
    id: v.id,
    merchantName: v.merchantName,
    description: v.description,
    amount: v.amount,
    currency: v.currency,
    reference: v.reference,
    status: v.status,
    hasPayout: v.hasPayout,
    expiresAt: v.expiresAt,
    stablecoinAmount: v.stablecoinAmount,
    chainId: v.chainId,
    tokenAddress: v.tokenAddress,
    tokenSymbol: v.tokenSymbol,
    ...(d
      ? {
          depositAddress: d.address,
          ...(d.uri ? { paymentUri: d.uri } : {}),
          ...(d.received !== '0' ? { depositReceived: usdcDecimal(d.received) } : {}),
        }
      : {}),
    ...(v.capture
      ? {
          captureMethod: 'manual' as const,
          amountCapturable: usdcDecimal(v.capture.capturable),
          amountCaptured: usdcDecimal(v.capture.captured),
          amountVoided: usdcDecimal(v.capture.voided),
          ...(v.capture.captureBefore ? { captureBefore: v.capture.captureBefore } : {}),
        }
      : {}),
  };
}
