/**
 * "Pay from your app wallet" on the hosted checkout (DESIGN.md 5): a signed-in customer pays a
 * checkout session from their custodial wallet. The service signs the same EIP-3009
 * authorization a browser wallet would (issued for this payment, its nonce derived from the
 * payment id) with the customer's custodial key and settles it through the one settlement
 * path, so a payment still settles at most once however it is paid.
 *
 * The customer's wallet is guarded like every other outgoing move (docs/money-modules.md):
 * a hold and the daily limit are reserved first, so a transfer or bill running at the same
 * time cannot spend the same money; they are released when nothing moved.
 */
import { isAddressEqual, type Address } from 'viem';
import type { Account } from '../accounts/accounts.js';
import { TransferAuthorization } from '../chain/authorization.js';
import type { ChainService } from '../chain/chain.js';
import { formatUsdc } from '../lib/money.js';
import { fail, type Fail, type Ok } from '../lib/results.js';
import { releaseSpend, type Limits, type Reservation } from '../limits/limits.js';
import type { Store } from '../store/index.js';
import { dropHold, holdKey, settleHold, withWalletFunds } from '../wallet/holds.js';
import type { Payment } from '../payments/payments.js';
import { SettleReason, type SettlementService } from './settlement.js';

export const AppWalletReason = {
  /** The payment settles to the payer's own wallet: nothing would move. */
  ownPayment: 'own_payment',
  overLimit: 'over_limit',
} as const;

export type AppWalletFailure = Fail<SettleReason | (typeof AppWalletReason)[keyof typeof AppWalletReason]>;
export type AppWalletResult = Ok<{ payment: Payment; txHash?: `0x${string}` }> | AppWalletFailure;

export interface AppWalletDeps {
  store: Store;
  chain: ChainService;
  settlement: SettlementService;
  defaultLimits?: Limits;
}

/** Settle outcomes after which the money may have left (or did leave) the wallet. */
const MAY_HAVE_MOVED: ReadonlySet<string> = new Set([SettleReason.chainUnavailable, SettleReason.processing]);

const inFlight = new Set<string>();

/** The payer's custodial address for `account`. */
export function appWalletAddress(chain: ChainService, account: Pick<Account, 'walletIndex'>): Address {
  return chain.custodialAddress(account.walletIndex);
}

export async function payFromAppWallet(deps: AppWalletDeps, payer: Account, paymentId: string): Promise<AppWalletResult> {
  const { chain, settlement } = deps;
  const from = appWalletAddress(chain, payer);
  const issued = await settlement.authorizationFor(paymentId, from);
  if (!issued.ok) return issued;
  const authorization = TransferAuthorization.parse(issued.typedData.message);
  if (isAddressEqual(authorization.to, from)) {
    return fail(AppWalletReason.ownPayment, 'This payment goes to your own wallet, so it cannot be paid from it. Pay from another wallet.');
  }

  // One attempt per payer and payment at a time in this process; the settlement queue and
  // the per-payment nonce keep it exactly-once across processes.
  const flight = `${payer.id}:${paymentId}`;
  if (inFlight.has(flight)) return fail(SettleReason.processing, 'This payment is already being processed. Please wait a moment.');
  inFlight.add(flight);
  try {
    const key = holdKey('checkout', paymentId);
    const reserved = await withWalletFunds(deps.store, chain, from, async (_tx, funds) =>
      funds.reserve({
        key,
        amount: authorization.value,
        limit: { account: payer, amount: authorization.value, now: new Date(), defaults: deps.defaultLimits },
        fmt: formatUsdc,
      }),
    );
    if (!reserved.ok) {
      if (reserved.reason === 'insufficient_balance') {
        return fail(SettleReason.insufficientBalance, `Your StablePay wallet does not hold enough USDC: ${reserved.message}`);
      }
      if (reserved.reason === 'over_limit') return fail(AppWalletReason.overLimit, reserved.message);
      return fail(SettleReason.chainUnavailable, 'The payment network could not be reached. Nothing was charged; try again in a moment.');
    }
    const reservation: Reservation = reserved.reservation;

    const signature = await chain.signAsCustodial(payer.walletIndex, authorization);
    const result = await settlement.settle(paymentId, { authorization, signature });
    const moved = result.ok || MAY_HAVE_MOVED.has(result.reason);
    await deps.store.transaction(async (tx) => {
      // Counted as moved whenever it may have moved: at worst the wallet reads as lower until
      // its balance is read again, never higher than it is.
      if (moved) await settleHold(tx, from, key, authorization.value);
      else {
        await dropHold(tx, from, key);
        await releaseSpend(tx, payer.id, reservation);
      }
    });
    return result;
  } finally {
    inFlight.delete(flight);
  }
}
