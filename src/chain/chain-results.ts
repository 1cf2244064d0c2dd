/** What the chain layer answers: reasons and result shapes (re-exported by chain.ts). */
import { type Address, type Hex } from 'viem';
import { type Fail, type Ok } from '../lib/results.js';
import type { Tx } from '../store/index.js';
import { nonceFor } from './authorization.js';
import type { SubmitReason } from '../lib/payment-reasons.js';
import type { JournalOwner } from './relay-journal.js';

// The reasons are the one vocabulary of src/lib/payment-reasons.ts.
export { VerifyReason, SubmitReason } from '../lib/payment-reasons.js';

/**
 * A refused submit. For `submit_failed`, `sendOutcome` says whether the transaction can have
 * reached the node: `refused` (the node answered with an error, or nothing was sent) means it
 * is not on its way; `unknown` (a timeout or a connection lost after sending) means it may be
 * in the pool and get mined later, under `txHash` (known before sending).
 */
/** `fenced`: nothing was sent because the caller's broadcast fence (SubmitOptions.fence) closed. */
export type SubmitFailure = Fail<SubmitReason> & { txHash?: Hex; sendOutcome?: 'refused' | 'unknown'; fenced?: true };

/**
 * Who may still broadcast a move (src/chain/owned-relay.ts): its owner, while its attempt is
 * still its generation and the attempt's window is open on the store's clock (PostgreSQL's
 * `clock_timestamp()`, read in the same statement as the generation: instances whose clocks
 * disagree still agree on it). `check` does that read before a send joins a group; `open`, with
 * no I/O, is checked again right before every broadcast (a nonce-clash retry, a batch member sent
 * again alone): the local clock's time since the check, added to the store's time it read, so a
 * constant skew of this process's clock cancels out. A slow owner never sends once the move may
 * have been handed over.
 */
export interface BroadcastFence {
  check(): Promise<boolean>;
  /** False before the first `check`. */
  open(): boolean;
  /** The attempt the transaction carries, journaled with it: a replay asks it again (relay-journal-recovery.ts). */
  owner?: JournalOwner;
}
/**
 * `recorded`: `recordWithJournal` ran in the commit that journaled the transaction (before its
 * broadcast). `batched`: the transaction went through the batch relay with other settlements,
 * each on its own, so its success says nothing of this one: its receipt's `used` does.
 */
export type SubmitResult = Ok<{ txHash: Hex; recorded?: true; batched?: true }> | SubmitFailure;

export interface SubmitOptions {
  /**
   * The caller ran `verifyTransferAuthorization` on this exact (auth, signature) just before
   * and it passed: skip the repeated checks. The call is still simulated once (the gas
   * estimate executes it) right before sending, so a revert is never sent.
   */
  verified?: boolean;
  /**
   * Writes that name the transaction, run in the same store transaction as its relay journal
   * entry, before the broadcast (one commit instead of two per relay; issue 23, point 2). Not
   * run when nothing new is sent (a resubmit answered with the earlier transaction) or when the
   * chain keeps no journal: the result's `recorded` says whether it ran.
   */
  recordWithJournal?: (txHash: Hex, tx: Tx) => Promise<void>;
  /**
   * Send it in a transaction of its own, never grouped with others through the batch relay
   * (relay.ts: an authorization the batch carried but the token refused goes again alone,
   * whose simulation names the reason).
   */
  alone?: boolean;
  /** Send only while this fence is open (an owned move's attempt); closed: `fenced`, nothing sent. */
  fence?: BroadcastFence;
  /**
   * The attempt the transaction carries, when no fence names it (a checkout settle): journaled
   * with the transaction, so a replay asks it first (relay-journal-recovery.ts).
   */
  journalOwner?: JournalOwner;
}

export interface FindAuthorizationOptions {
  /** Lowest block to scan; default: the deploy block (embedded) or `since`, within the max lookback. */
  fromBlock?: bigint;
  /** The authorization cannot have been used before this time (e.g. the payment's creation). */
  since?: Date | string;
  /** A transaction recorded at send time: checked first, which usually saves the log scan. */
  txHash?: Hex;
}

export const FaucetReason = {
  notAvailable: 'not_available',
  invalidAmount: 'invalid_amount',
  submitFailed: 'submit_failed',
  reverted: 'reverted',
} as const;
export type FaucetReason = (typeof FaucetReason)[keyof typeof FaucetReason];

export interface ReceiptOutcome {
  /** `timeout`: not mined (or the node unreachable) within the wait; ask again later. */
  status: 'success' | 'reverted' | 'timeout';
  blockNumber?: bigint;
  gasUsed?: bigint;
  /** The authorizations the transaction used on the token (`authorizationKey`, from its AuthorizationUsed logs). */
  used?: readonly string[];
}

export interface CustodialTransferParams {
  /** BIP-44 index of the paying custodial wallet. */
  fromIndex: number;
  to: Address;
  /** Base units (6 decimals for USDC). */
  value: bigint;
  /** bytes32; use `nonceFor(kind, id)` so the same business operation can move money once. */
  nonce: Hex;
}
