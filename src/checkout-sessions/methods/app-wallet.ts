/**
 * "Pay from your app wallet" on the hosted checkout (DESIGN.md 5;
 * `POST /api/checkout/:id/app-wallet-pay`): a signed-in customer pays from their custodial
 * wallet. The service signs the authorization this payment issues (its nonce derived from the
 * payment id, so it still settles at most once however it is paid) with the customer's key.
 *
 * The wallet is guarded like every other outgoing move (docs/money-modules.md): a hold and the
 * daily limit are reserved before signing, so a transfer or bill at the same time cannot spend
 * the same money; after settle they are kept when the money may have moved, else released.
 */
import { isAddressEqual } from 'viem';
import type { Account } from '../../accounts/accounts.js';
import { TransferAuthorization } from '../../chain/authorization.js';
import { formatUsdc } from '../../lib/money.js';
import { fail } from '../../lib/results.js';
import { releaseSpend } from '../../limits/limits.js';
import { SettleReason } from '../../settlement/settlement.js';
import { dropHold, holdKey, settleHold, withWalletFunds } from '../../wallet/holds.js';
import type { PaymentMethod } from '../pay.js';

export const AppWalletRefusal = {
  /** The payment settles to the payer's own wallet: nothing would move. */
  ownPayment: 'own_payment',
  overLimit: 'over_limit',
} as const;
export type AppWalletRefusal = (typeof AppWalletRefusal)[keyof typeof AppWalletRefusal];

export interface AppWalletInput {
  method: 'app-wallet';
  /** The signed-in customer paying. */
  payer: Account;
}

/** Settle outcomes after which the money may have left (or did leave) the wallet. */
const MAY_HAVE_MOVED: ReadonlySet<string> = new Set([SettleReason.chainUnavailable, SettleReason.processing]);

/** One attempt per payer and payment at a time in this process (the per-payment nonce keeps it once across processes). */
const inFlight = new Set<string>();

export const appWallet: PaymentMethod<AppWalletInput, AppWalletRefusal> = {
  name: 'app-wallet',
  async authorize({ store, chain, settlement, payment }, { payer }) {
    const from = chain.custodialAddress(payer.walletIndex);
    const issued = await settlement.authorizationFor(payment.id, from);
    if (!issued.ok) return issued;
    const authorization = TransferAuthorization.parse(issued.typedData.message);
    if (isAddressEqual(authorization.to, from)) {
      return fail(AppWalletRefusal.ownPayment, 'This payment goes to your own wallet, so it cannot be paid from it. Pay from another wallet.');
    }
    const flight = `${payer.id}:${payment.id}`;
    if (inFlight.has(flight)) return fail(SettleReason.processing, 'This payment is already being processed. Please wait a moment.');
    inFlight.add(flight);
    let handedOver = false;
    try {
      const key = holdKey('checkout', payment.id);
      const reserved = await withWalletFunds(store, chain, from, async (_tx, funds) =>
        funds.reserve({ key, amount: authorization.value, limit: { account: payer, amount: authorization.value, now: new Date() }, fmt: formatUsdc }),
      );
      if (!reserved.ok) {
        if (reserved.reason === 'insufficient_balance') {
          return fail(SettleReason.insufficientBalance, `Your StablePay wallet does not hold enough USDC: ${reserved.message}`);
        }
        if (reserved.reason === 'over_limit') return fail(AppWalletRefusal.overLimit, reserved.message);
        return fail(SettleReason.chainUnavailable, 'The payment network could not be reached. Nothing was charged; try again in a moment.');
      }
      const signature = await chain.signAsCustodial(payer.walletIndex, authorization);
      handedOver = true;
      return {
        ok: true,
        request: { authorization, signature },
        after: async (result) => {
          try {
            if (!result) return; // settle threw: the hold stays until the wallet's balance is read again
            const moved = result.ok || MAY_HAVE_MOVED.has(result.reason);
            await store.transaction(async (tx) => {
              // Counted as moved whenever it may have moved: at worst the wallet reads as lower
              // until its balance is read again, never higher than it is.
              if (moved) await settleHold(tx, from, key, authorization.value);
              else {
                await dropHold(tx, from, key);
                await releaseSpend(tx, payer.id, reserved.reservation);
              }
            });
          } finally {
            inFlight.delete(flight);
          }
        },
      };
    } finally {
      if (!handedOver) inFlight.delete(flight);
    }
  },
};
