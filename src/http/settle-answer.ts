/**
 * The checkout-shaped answers of a settle (`{ok, payment, txHash, redirect}` or `{ok:false,
 * error, reason}`), shared by the HTTP doors that settle a checkout payment: the API's
 * /checkout/:id/settle (also answered in front of express), x402, the checkout page's app-wallet
 * pay and the dev test wallet.
 */
import type { Response } from 'express';
import type { Core } from '../core/core.js';
import { SettleReason, type SettleResult } from '../settlement/settlement.js';
import { checkoutJson } from '../checkout-sessions/json.js';
import { redirectFor } from '../checkout-sessions/checkout-sessions.js';

export { redirectFor };

/** HTTP status per settlement failure (docs/settlement.md). */
export const SETTLE_STATUS: Record<SettleReason | 'invalid_request', number> = {
  invalid_request: 400,
  invalid_signature: 400,
  wrong_recipient: 400,
  wrong_amount: 400,
  wrong_nonce: 400,
  wrong_validity: 400,
  not_yet_valid: 400,
  // 402 Payment Required: the payer can fix it by funding the wallet (as x402 answers).
  insufficient_balance: 402,
  not_found: 404,
  already_settled: 409,
  authorization_canceled: 409,
  payment_failed: 409,
  canceled: 409,
  processing: 409,
  expired: 410,
  simulation_failed: 422,
  reverted: 422,
  chain_unavailable: 503,
  submit_failed: 503,
};

/**
 * A settle result as status and body: 200 settled (with the redirect), 202 still confirming, or
 * the failure as `{ok:false, error, reason}` (a reverted one with the way back to the merchant
 * when `paymentId` is known).
 */
export async function settleAnswer(deps: Pick<Core, 'payments' | 'checkoutSessions'>, r: SettleResult, paymentId?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  if (!r.ok) {
    const body: Record<string, unknown> = { ok: false, error: r.message, reason: r.reason };
    if (r.reason === SettleReason.reverted) {
      // The payment is now failed: the page can offer the way back to the merchant.
      const p = paymentId ? await deps.payments.get(paymentId) : undefined;
      if (p) body.redirect = redirectFor(p);
    }
    return { status: SETTLE_STATUS[r.reason], body };
  }
  // The session's view of the payment the settle returned, without a deposit address (it is paid).
  // The merchant's name as the public read shows it (kept a few seconds): the payer's page polls
  // that read anyway, and a settle no longer reads the account for its answer (issue 23, ninth round).
  const view = await deps.checkoutSessions.viewOf(r.payment, { deposit: false, receipt: false, payTo: false, reuseName: true });
  const payment = checkoutJson(view, { deposit: false });
  // Sent but not confirmed yet (202): resubmitting the same body returns the outcome.
  return r.payment.status === 'settled'
    ? { status: 200, body: { ok: true, payment, txHash: r.txHash, redirect: redirectFor(r.payment) } }
    : { status: 202, body: { ok: true, payment, txHash: r.txHash ?? null } };
}

/**
 * Writes a settle result (`settleAnswer`) with `Cache-Control: no-store`; `res.locals.paymentId`
 * names the payment. Shared with the dev test-wallet route.
 */
export async function sendSettleResult(deps: Pick<Core, 'payments' | 'checkoutSessions'>, res: Response, r: SettleResult): Promise<void> {
  res.set('Cache-Control', 'no-store');
  const { status, body } = await settleAnswer(deps, r, (res.locals as { paymentId?: string }).paymentId);
  res.status(status).json(body);
}
