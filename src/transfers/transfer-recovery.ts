import type { Address, Hex } from 'viem';
import type { ChainPort } from '../chain/chain-port.js';
import { relayAttemptId, type RelayAttempts } from '../chain/owned-relay.js';
import { servedBy } from '../lib/livemode.js';
import { rangeAll, type Store } from '../store/index.js';
import { Transfers, type Transfer } from './transfer-row.js';

/**
 * Transfers left `submitted` or with an unpaid fee, untouched for `idleMs` (TransfersService.unfinished,
 * the `reconcile:money` pass's list).
 */
export async function unfinishedTransfers(store: Store, now: Date, idleMs: number, livemode: boolean | undefined): Promise<Transfer[]> {
  // Range reads of the idle rows only (docs/store.md "Range reads"): the settled history,
  // which grows without bound, is never read whole.
  const atMost = new Date(now.getTime() - idleMs).toISOString();
  const t = store.table(Transfers);
  const all = (where: Partial<Transfer>) => rangeAll(t, where, { field: 'updatedAt', atMost, limit: 500 });
  const [submitted, feePending, feeFailed, quoted] = await Promise.all([all({ status: 'submitted' }), all({ feeStatus: 'pending' }), all({ feeStatus: 'failed' }), all({ status: 'quoted' })]);
  // A firm quote's transfer left `quoted` (its send never began): ended once the quote expired, with its
  // reservation if it has one. Every expired one is ended, so none stay to fill the 500-row window
  // ahead of one that holds a reservation.
  const stranded = quoted.filter((q) => Date.parse(q.quoteExpiresAt) <= now.getTime());
  return [...submitted, ...stranded, ...[...feePending, ...feeFailed].filter((s) => s.status === 'settled')].filter((x) => servedBy(x, livemode));
}

/**
 * What the start-up pass (TransfersService.finishMovedOnChain, run before the doors open) needs to
 * record a `submitted` transfer as settled: an agent turn's settled outcome is made durable after
 * its reply (docs/money-modules.md, "An agent transfer's outcome after its reply"), so a crash in between leaves the
 * row `submitted` with its relay attempt, whose hash the relay journal's commit made durable
 * before the broadcast (a batch member's: none, when its receipt came within the hash record's grace). Only money the chain shows moved is recorded here; anything else (not
 * mined, reverted, unknown, the chain unreachable) is left to the `reconcile:money` pass, whose
 * relay ledger alone may call a move failed.
 */
export interface MovedOnChain {
  txHash: Hex;
  /** The principal's relay attempt, still open: closed with the outcome, as the live path does. */
  openAttempt?: string;
}

/** Every `submitted` transfer of the served mode, whatever its age (the start-up pass: nothing here is in flight). */
export async function submittedTransfers(store: Store, livemode: boolean | undefined): Promise<Transfer[]> {
  return (await rangeAll(store.table(Transfers), { status: 'submitted' }, { field: 'updatedAt', limit: 500 })).filter((x) => servedBy(x, livemode));
}

export async function movedOnChain(
  chain: ChainPort,
  attempts: RelayAttempts,
  t: Transfer,
  withFee: boolean,
  opts: { isLive?: (owner: string) => Promise<boolean>; timeoutMs?: number } = {},
): Promise<MovedOnChain | undefined> {
  const from = t.fromAddress as Address;
  const nonce = chain.nonceFor('transfer', t.id);
  const id = relayAttemptId('transfer', from, nonce);
  const attempt = await attempts.get(id);
  const known = attempt?.txHash ?? attempt?.answer?.txHash;
  // A move without the ledger: the reconcile's. An attempt without a hash may still have moved:
  // a batch member answered settled within the hash record's grace (relay.ts
  // SENT_RECORD_GRACE_MS) has its hash only in the deferred outcome, so the chain decides
  // (the token's nonce, then a log scan from the attempt's start).
  if (!attempt) return undefined;
  // Another live instance is relaying it: its own outcome write follows (and its notification).
  if (attempt.state === 'open' && opts.isLive && (await opts.isLive(attempt.instanceId))) return undefined;
  // The token says the authorization was used (and the fee's, when they left in one batch: all or none).
  if (!(await chain.authorizationState(from, nonce))) return undefined;
  if (withFee && !(await chain.authorizationState(from, chain.nonceFor('transfer-fee', t.id)))) return undefined;
  const txHash = await chain.findAuthorizationTx(from, nonce, { since: attempt.startedAt, ...(known ? { txHash: known as Hex } : {}) });
  if (!txHash) return undefined;
  if ((await chain.waitForReceipt(txHash, opts.timeoutMs)).status !== 'success') return undefined;
  return { txHash, ...(attempt.state === 'open' ? { openAttempt: id } : {}) };
}
