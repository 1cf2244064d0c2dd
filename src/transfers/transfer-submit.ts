import type { Address } from 'viem';
import type { Account } from '../accounts/accounts.js';
import type { ChainPort } from '../chain/chain-port.js';
import { nowIso } from '../lib/ids.js';
import { fail, type Result } from '../lib/results.js';
import type { Limits } from '../limits/limits.js';
import type { Store, TransactionOptions, Tx } from '../store/index.js';
import { holdKey, withWalletFunds, type FundsSnapshot } from '../wallet/holds.js';
import type { Transfer } from './transfer-row.js';

/**
 * How a transfer leaves `quoted` (or is written at once, by `send`): under a hold, in one
 * transaction with its limit reservation. Apart from transfers.ts for its size.
 */

/** What `holdAndSubmit` needs of the transfers service. */
export interface SubmitDeps {
  store: Store;
  chain: ChainPort;
  defaultLimits: Limits | undefined;
  fmt: (v: bigint) => string;
}

/**
 * Balance check, limit reservation, the hold and the row's write (`write`: `submitted`, or
 * `failed` when refused) in one transaction. The balance is read outside it (no chain call
 * inside one); the check against it, net of other moves in flight from this wallet, inside.
 */
export async function holdAndSubmit(
  deps: SubmitDeps,
  t: Transfer,
  sender: Account,
  now: Date,
  write: (tx: Tx, patch: Partial<Transfer>) => Promise<Transfer | undefined>,
  /** The balance read, already started by the caller (withWalletFunds' `firstRead`). */
  firstRead?: Promise<FundsSnapshot>,
  txOpts?: TransactionOptions,
): Promise<Result<{ transfer: Transfer }, 'insufficient_balance' | 'over_limit' | 'chain_unavailable'>> {
  const totalDebit = BigInt(t.totalDebit);
  const done = await withWalletFunds(deps.store, deps.chain, t.fromAddress as Address, async (tx, funds) => {
    const reserved = await funds.reserve({
      key: holdKey('transfer', t.id),
      amount: totalDebit,
      limit: { account: sender, amount: BigInt(t.stablecoinAmount), now, defaults: deps.defaultLimits },
      fmt: deps.fmt,
    });
    if (!reserved.ok) {
      const message =
        reserved.reason === 'insufficient_balance'
          ? `Insufficient balance: this needs ${deps.fmt(totalDebit)} (including the ${deps.fmt(BigInt(t.fee))} fee) and your wallet has ${deps.fmt(reserved.available)}${reserved.available === reserved.balance ? '' : ' available, after payments still in progress'}.`
          : reserved.message;
      await write(tx, { status: 'failed', failureReason: reserved.reason, failureMessage: message, feeStatus: 'none', updatedAt: nowIso() });
      return fail(reserved.reason, message, 'amount');
    }
    const row = await write(tx, { status: 'submitted', reservation: reserved.reservation, submittedAt: nowIso(), updatedAt: nowIso() });
    return { ok: true as const, transfer: row! };
  }, firstRead, txOpts);
  if (!done.ok && done.reason === 'chain_unavailable') {
    return fail('chain_unavailable', 'The network is not reachable right now; nothing was sent. Try again shortly.');
  }
  return done;
}

