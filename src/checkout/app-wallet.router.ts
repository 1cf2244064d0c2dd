import { Router } from 'express';
import type { Core } from '../core/core.js';
import { auth, requireSession } from '../http/auth.js';
import { useErrorShape } from '../http/errors.js';
import { SETTLE_STATUS, sendSettleResult } from '../http/settle-answer.js';
import { AppWalletReason } from '../settlement/wallet-payments.js';
import type { SettleReason } from '../settlement/settlement.js';

const APP_WALLET_STATUS: Record<(typeof AppWalletReason)[keyof typeof AppWalletReason], number> = {
  own_payment: 409,
  over_limit: 422,
};

/**
 * `POST /api/checkout/:id/app-wallet-pay`: the signed-in customer pays the session from their
 * app wallet (session cookie, same origin only; DESIGN.md 5). Answers like `/checkout/:id/settle`.
 */
export function appWalletPayRouter(deps: Core): Router {
  const r = Router();
  r.use('/checkout', useErrorShape('checkout'));
  r.post('/checkout/:id/app-wallet-pay', requireSession(deps), async (req, res) => {
    const id = String(req.params.id);
    const payer = await deps.accounts.get(auth(res).accountId);
    if (!payer) throw new Error(`no account ${auth(res).accountId} behind the session`);
    res.locals.paymentId = id;
    const result = await deps.walletPayments.fromAppWallet(payer, id);
    if (!result.ok && result.reason in APP_WALLET_STATUS) {
      res.set('Cache-Control', 'no-store');
      res.status(APP_WALLET_STATUS[result.reason as keyof typeof APP_WALLET_STATUS]).json({ ok: false, error: result.message, reason: result.reason });
      return;
    }
    if (!result.ok && !(result.reason in SETTLE_STATUS)) throw new Error(`unmapped reason ${result.reason}`);
    await sendSettleResult(deps, res, result as Parameters<typeof sendSettleResult>[2] & { reason?: SettleReason });
  });
  return r;
}
