/**
 * The deposit address (docs/settlement.md, "Deposit addresses"): the customer sends a plain token
 * transfer to the session's own address from any wallet. No door call answers it: the deposit
 * watcher (src/settlement/deposit-watcher.ts) notices the money and hands the session's deposit
 * over to `pay(id, { method: 'deposit-address', deposit })`.
 *
 * The adapter turns what arrived into ONE authorization, the sweep of exactly the amount from the
 * deposit address to pay_to, signed by the deposit key (nonce: the payment id and
 * 'deposit-sweep'), with DEPOSIT_SWEEP_TERMS for settlement to check it by; or a named refusal:
 * `deposit_underpaid` (the session waits for a top-up), `deposit_attempt_open` (a signed
 * authorization may still land), or settlement's own (expired, canceled, already paid...). What
 * went over the amount, and money a session cannot take, goes back to its sender (the watcher's
 * give-backs). The decision is `authorizeDeposit` (src/settlement/deposit-sweep.ts), beside the
 * sweep it feeds, so the watcher built alone runs the same rule.
 */
import { authorizeDeposit, type DepositAddressInput, type DepositRefusal } from '../../settlement/deposit-sweep.js';
import type { PaymentMethod } from '../pay.js';

export type { DepositAddressInput, DepositRefusal };

export const depositAddress: PaymentMethod<DepositAddressInput, DepositRefusal> = {
  name: 'deposit-address',
  authorize: ({ payment, chain, settlement }, { deposit }) => authorizeDeposit({ payment, chain, recipientFor: (p) => settlement.recipientFor(p) }, deposit),
};
