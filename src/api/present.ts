import type { Payment } from '../payments/payments.js';
import { stablecoinText } from '../payments/payments.js';

/** The authenticated payment resource (snake_case, as merchants read it). */
export function paymentResource(p: Payment, checkoutUrl: string, extra: Record<string, unknown> = {}) {
  return {
    id: p.id,
    object: 'payment',
    status: p.status,
    amount: Number(p.amount),
    currency: p.currency,
    stablecoin_amount: stablecoinText(p),
    stablecoin_amount_base_units: p.stablecoinAmount,
    rate: p.rate,
    checkout_url: checkoutUrl,
    redirect_url: p.redirectUrl,
    reference: p.reference ?? null,
    merchant_name: p.merchantName ?? null,
    description: p.description ?? null,
    payout_address: p.payoutAddress ?? null,
    metadata: p.metadata ?? {},
    webhook_url: p.webhookUrl ?? null,
    expires_in_minutes: p.expiresInMinutes,
    created_at: p.createdAt,
    expires_at: p.expiresAt,
    tx_hash: p.txHash ?? null,
    payer: p.payer ?? null,
    settled_at: p.settledAt ?? null,
    failure_reason: p.failureReason ?? null,
    ...extra,
  };
}

/** Interface 2.2: the public checkout view. Exactly these fields, plus what the page needs to pay. */
export function checkoutView(p: Payment, merchantName: string) {
  return {
    id: p.id,
    merchantName: p.merchantName ?? merchantName,
    description: p.description ?? '',
    amount: Number(p.amount),
    currency: p.currency,
    reference: p.reference ?? '',
    status: p.status,
    hasPayout: p.payoutAddress !== undefined,
    expiresAt: p.expiresAt,
    stablecoinAmount: stablecoinText(p),
  };
}
