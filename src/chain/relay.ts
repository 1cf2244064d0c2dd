/**
 * The one relay path and the one relay outcome for every on-chain move (issue 12, item 4;
 * issue 22, point 3): checkout settle, x402 `exact` settle, deposit sweeps and give-backs,
 * custodial moves (with their fee in the same transaction), refunds. Nothing in the domain
 * calls the chain port's `submitTransfers` but this function; `relayOwned` (owned-relay.ts) is
 * the cross-instance ownership around it.
 *
 * `relayOnce` submits an EIP-3009 authorization exactly once and answers in three words, the
 * way x402's facilitator returns one final SettleResponse:
 * - `settled(tx)`: the authorization was used on chain by `tx` (ours, or an earlier send of
 *   the same authorization: the EIP-3009 nonce lets only one through);
 * - `pending(tx?)`: it may still be mined (no receipt in time, a send whose answer was lost)
 *   or the chain could not be asked; relaying the same authorization again is safe;
 * - `failed(reason)`: the chain says nothing moved.
 * A settlement grouped with others through the batch relay (submit.ts) is settled only by its
 * own AuthorizationUsed log in that transaction's receipt (a transfer with its fee: by both
 * logs); one the batch did not carry is sent again alone. Callers map these to their own records and never interpret the chain's reasons themselves;
 * the failure reasons are the one vocabulary of src/lib/payment-reasons.ts.
 *
 * The same function and outcome carry the other kind of move, a relayer contract call
 * (`{ kind: 'contract-call', to, data }`: the x402 auth-capture escrow's authorize, capture,
 * void and refund, the refund collector's approval, a funding return). It is sent through the
 * relayer's one sender (its nonce and the relay journal, relayer-call.ts) and classified the same
 * way; nothing in the domain calls the call port's `send` but this function.
 */
import type { Address, Hex } from 'viem';
import type { Tx } from '../store/index.js';
import type { TransferAuthorization } from './authorization.js';
import type { RelayFailure } from '../lib/payment-reasons.js';
import type { ChainPort, SignedAuthorization } from './chain-port.js';
import type { SubmitOptions } from './chain-results.js';
import type { RelayerCallPort } from './chain.js';
import { authorizationKey } from './relay-batches.js';

export type { RelayFailure };

export type RelayOutcome =
  | { status: 'settled'; txHash: Hex }
  /**
   * `mayHaveSent: false`: this call sent nothing (the chain could not be reached before sending).
   * `fenced`: nothing sent because the caller's broadcast fence closed (its attempt may have been
   * handed to another instance): the caller must not call the move provably unsent to its payer.
   */
  | { status: 'pending'; txHash?: Hex; message: string; mayHaveSent: boolean; fenced?: true }
  /** `cause` of a `rejected`: the node refused the send, or could not be reached before it. */
  | {
      status: 'failed';
      reason: RelayFailure;
      message: string;
      param?: string;
      /** The reverted transaction. */
      txHash?: Hex;
      cause?: 'submit_failed' | 'chain_unavailable';
      /** A revert because the payer's balance was spent meanwhile (e.g. concurrent moves from one wallet). */
      spent?: true;
      /** A contract call the node refused to estimate: its revert data (a custom error to decode). */
      data?: Hex;
    };

/** The part of the chain port `relayOnce` needs (tests fake it). */
export type RelayChain = Pick<ChainPort, 'submitTransfers' | 'waitForReceipt' | 'authorizationState' | 'balanceOf' | 'findAuthorizationTx'>;

export interface RelayOptions extends SubmitOptions {
  /** How long to wait for the receipt before answering `pending(tx)`. */
  timeoutMs?: number;
  /**
   * The caller's durable record of the hash while the receipt is awaited (when the journal's
   * commit did not write it: `recordWithJournal`). It first waits up to `recordGraceMs` for the
   * receipt: a receipt in that time that says this move's money moved (success and, for a batch
   * member, every one of its authorizations' logs) skips it, and the `settled` outcome's hash is
   * then the caller's to store with its settled write. Otherwise (the grace passed, no receipt in
   * time, a revert, a member refused inside its batch) it runs, and the outcome is answered only
   * once it is done, as a send whose answer was lost is. Nothing in memory: see `onTxHash`.
   */
  onSent?: (txHash: Hex) => Promise<void> | void;
  /** Told every hash this call sends, at once and never skipped (in-memory bookkeeping: which transaction is this call's). */
  onTxHash?: (txHash: Hex) => void;
  /** How long `onSent` waits for the receipt before it runs; SENT_RECORD_GRACE_MS unless given (0: at once). */
  recordGraceMs?: number;
  /**
   * The same record written inside the relay journal's commit, before the broadcast (one
   * commit fewer per relay). `onSent` is then not called for that transaction; it still is
   * whenever the chain could not take this (no journal, an earlier transaction answered).
   */
  recordWithJournal?: (txHash: Hex, tx: Tx) => Promise<void>;
  /** Lower bound for a log scan looking for the transaction that used the authorization. */
  since?: Date | string;
  /**
   * Authorizations relayed in the same transaction, all or none (a custodial move's fee; only
   * when the token has `batchTransfers`). The outcome is read through the first authorization:
   * the batch is all or none, so its nonce used means theirs are too.
   */
  batchWith?: readonly SignedAuthorization[];
}

/**
 * How long a sent move's hash record (`onSent`) waits for the receipt (fifteenth round, h15hash).
 * In a burst most settles go as members of a batch, whose hash is not in the journal's commit:
 * each then recorded it in a commit of its own (2 statements on PostgreSQL) while the receipt,
 * usually back well before that commit, was awaited. A record only matters if the process dies
 * before the outcome is written, and then the reconciler finds the transaction from the chain's
 * AuthorizationUsed log anyway (docs/settlement.md). One second covers the embedded chain's
 * receipts (settle to receipt p99 0.44 s at 100/s offered, issue 23), and on a network with
 * slower blocks delays the hash's record by at most that: the outcome itself never waits on it.
 */
export const SENT_RECORD_GRACE_MS = 1_000;

export function relayOnce(chain: RelayChain, auth: TransferAuthorization, signature: Hex, opts?: RelayOptions): Promise<RelayOutcome>;
export function relayOnce(chain: CallRelayChain, move: ContractCallMove, opts?: CallRelayOptions): Promise<RelayOutcome>;
export async function relayOnce(
  chain: RelayChain | CallRelayChain,
  auth: TransferAuthorization | ContractCallMove,
  signature?: Hex | CallRelayOptions,
  opts: RelayOptions = {},
): Promise<RelayOutcome> {
  // A contract call (the escrow's, x402 auth-capture) is the other kind of move: see the end of this file.
  if (isContractCall(auth)) return await relayContractCall(chain as CallRelayChain, auth, signature as CallRelayOptions | undefined);
  return relayTransfers(chain as RelayChain, auth, signature as Hex, opts);
}

async function relayTransfers(chain: RelayChain, auth: TransferAuthorization, signature: Hex, opts: RelayOptions): Promise<RelayOutcome> {
  const sent = await chain.submitTransfers([{ auth, signature }, ...(opts.batchWith ?? [])], {
    ...(opts.verified ? { verified: true } : {}),
    ...(opts.recordWithJournal ? { recordWithJournal: opts.recordWithJournal } : {}),
    ...(opts.alone ? { alone: true } : {}),
    ...(opts.fence ? { fence: opts.fence } : {}),
    ...(opts.journalOwner ? { journalOwner: opts.journalOwner } : {}),
  });
  if (sent.ok) {
    opts.onTxHash?.(sent.txHash);
    const all = [auth, ...(opts.batchWith ?? []).map((b) => b.auth)];
    // Sent with other settlements through the batch relay, each on its own: only this
    // authorization's own AuthorizationUsed log in the receipt says its money moved.
    // A member of several authorizations (a transfer and its fee, all or none) needs every one's log.
    const moved = (r: ReceiptRead) => r.status === 'success' && (!sent.batched || all.every((a) => r.used?.includes(authorizationKey(a.from, a.nonce))));
    const receipt = await receiptAfterRecord(chain, sent, opts, moved);
    if (receipt.status === 'timeout') {
      return { status: 'pending', txHash: sent.txHash, message: 'the transaction is not confirmed yet', mayHaveSent: true };
    }
    if (sent.batched) {
      if (moved(receipt)) return { status: 'settled', txHash: sent.txHash };
      // Refused inside the batch (or the whole batch reverted): nothing of it moved there. Sent
      // again alone, whose own checks and simulation give the truthful outcome (a used
      // authorization is found, a refused one names its reason, a good one settles).
      return relayOnce(chain, auth, signature, { ...opts, verified: false, alone: true });
    }
    if (receipt.status === 'success') return { status: 'settled', txHash: sent.txHash };
    // Reverted, which moves nothing by itself; but another transaction may have used the
    // authorization first (a duplicate send), and then the money did move.
    return afterRevert(chain, auth, sent.txHash, opts);
  }
  // The owner's window closed (owned-relay.ts): this call sent nothing; whoever holds the move now decides it.
  if (sent.fenced) return { status: 'pending', message: sent.message, mayHaveSent: false, fenced: true };
  switch (sent.reason) {
    case 'authorization_used':
      // An earlier send (before a crash, a timeout, a double click) already moved it.
      return usedBy(chain, auth, opts);
    case 'chain_unavailable':
    case 'submit_failed': {
      // A timeout or a connection lost after sending: it may be in the pool and get mined.
      if (sent.reason === 'submit_failed' && sent.sendOutcome === 'unknown') {
        if (sent.txHash) opts.onTxHash?.(sent.txHash);
        // No receipt to wait for: recorded at once (whoever resolves it later follows this hash).
        if (sent.txHash) await opts.onSent?.(sent.txHash);
        return sent.txHash
          ? { status: 'pending', txHash: sent.txHash, message: sent.message, mayHaveSent: true }
          : { status: 'pending', message: sent.message, mayHaveSent: true };
      }
      // Refused, or the chain was unreachable before sending. An earlier send of the same
      // authorization may still have been taken: ask the token before calling it failed.
      const used = await chain.authorizationState(auth.from, auth.nonce).catch(() => undefined);
      if (used === undefined) return { status: 'pending', message: sent.message, mayHaveSent: sent.reason === 'submit_failed' };
      if (used) return usedBy(chain, auth, opts);
      return { status: 'failed', reason: 'rejected', message: sent.message, cause: sent.reason };
    }
    default:
      return sent.param
        ? { status: 'failed', reason: sent.reason, message: sent.message, param: sent.param }
        : { status: 'failed', reason: sent.reason, message: sent.message };
  }
}

type ReceiptRead = Awaited<ReturnType<RelayChain['waitForReceipt']>>;

/**
 * The receipt of a sent move, with its hash recorded first unless the journal's commit did it or
 * the receipt came within the grace and says the money moved (`onSent`). Recording overlaps the
 * rest of the receipt wait; the answer waits for both, so a caller applying anything but
 * "settled" finds the hash stored, as before (pending with its hash, a revert, a batch member
 * sent again alone).
 */
async function receiptAfterRecord(chain: RelayChain, sent: { txHash: Hex; recorded?: true }, opts: RelayOptions, moved: (r: ReceiptRead) => boolean): Promise<ReceiptRead> {
  const receipt = chain.waitForReceipt(sent.txHash, opts.timeoutMs);
  if (sent.recorded || !opts.onSent) return receipt;
  const early = await withinGrace(receipt, opts.recordGraceMs ?? SENT_RECORD_GRACE_MS);
  if (early && moved(early)) return early;
  const [, read] = await Promise.all([opts.onSent(sent.txHash), receipt]);
  return read;
}

/** `p`'s value if it settles within `ms`, else undefined (its timer never holds the process open). */
async function withinGrace<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms <= 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms).unref();
  });
  try {
    return await Promise.race([p, grace]);
  } finally {
    clearTimeout(timer);
  }
}

async function afterRevert(chain: RelayChain, auth: TransferAuthorization, txHash: Hex, opts: RelayOptions): Promise<RelayOutcome> {
  const reverted = `transaction ${txHash} reverted`;
  try {
    if (await chain.authorizationState(auth.from, auth.nonce)) {
      const other = await chain.findAuthorizationTx(auth.from, auth.nonce, opts.since ? { since: opts.since } : {});
      if (other && other.toLowerCase() !== txHash.toLowerCase()) return { status: 'settled', txHash: other };
      if (!other) {
        return { status: 'pending', txHash, message: `${reverted}; the authorization was used by a transaction not found yet`, mayHaveSent: true };
      }
    }
    // Concurrent moves from the same wallet can spend the balance between the checks and inclusion.
    // With a batch, "spent meanwhile" means the wallet no longer holds all it moves.
    const needed = (opts.batchWith ?? []).reduce((sum, b) => (b.auth.from.toLowerCase() === auth.from.toLowerCase() ? sum + b.auth.value : sum), auth.value);
    if ((await chain.balanceOf(auth.from)) < needed) {
      return { status: 'failed', reason: 'reverted', message: `${reverted}: the wallet no longer holds enough`, txHash, spent: true };
    }
  } catch {
    return { status: 'pending', txHash, message: `${reverted}; the chain could not be asked why`, mayHaveSent: true };
  }
  return { status: 'failed', reason: 'reverted', message: reverted, txHash };
}

async function usedBy(chain: RelayChain, auth: TransferAuthorization, opts: RelayOptions): Promise<RelayOutcome> {
  const txHash = await chain.findAuthorizationTx(auth.from, auth.nonce, opts.since ? { since: opts.since } : {}).catch(() => undefined);
  if (!txHash) return { status: 'pending', message: 'the authorization was used but its transaction was not found yet', mayHaveSent: true };
  const receipt = await chain.waitForReceipt(txHash, opts.timeoutMs);
  return receipt.status === 'success'
    ? { status: 'settled', txHash }
    : { status: 'pending', txHash, message: 'the authorization was used; its receipt is not readable yet', mayHaveSent: true };
}

// ---------------------------------------------------------------------------- contract calls

/** A relayer contract call (the escrow's, x402 auth-capture): the other kind of on-chain move. */
export interface ContractCallMove {
  kind: 'contract-call';
  to: Address;
  data: Hex;
}

/** The part of the chain a contract call needs (the auth-capture port has it). */
export interface CallRelayChain {
  call: Pick<RelayerCallPort, 'send'>;
  waitForReceipt: ChainPort['waitForReceipt'];
}

export interface CallRelayOptions {
  timeoutMs?: number;
  /** Told the hash before the receipt is awaited (kept by the caller, so a retry never sends twice). */
  onSent?: (txHash: Hex) => Promise<void> | void;
}

export function contractCall(call: { to: Address; data: Hex }): ContractCallMove {
  return { kind: 'contract-call', to: call.to, data: call.data };
}

function isContractCall(m: TransferAuthorization | ContractCallMove): m is ContractCallMove {
  return (m as Partial<ContractCallMove>).kind === 'contract-call';
}

/**
 * A call has no EIP-3009 nonce to ask the token about, so it is sent once per call here: the gas
 * estimate is its simulation (refused: nothing was sent), the hash is told before the receipt
 * wait, and a receipt not in time answers `pending(tx)` for the caller to read again later.
 */
async function relayContractCall(chain: CallRelayChain, move: ContractCallMove, opts: CallRelayOptions = {}): Promise<RelayOutcome> {
  const sent = await chain.call.send({ to: move.to, data: move.data });
  if (!sent.ok) {
    return sent.reason === 'unavailable'
      ? { status: 'failed', reason: 'rejected', message: sent.message, cause: 'chain_unavailable' }
      : { status: 'failed', reason: 'simulation_failed', message: sent.message, ...(sent.data ? { data: sent.data } : {}) };
  }
  await opts.onSent?.(sent.txHash);
  const receipt = await chain.waitForReceipt(sent.txHash, opts.timeoutMs);
  if (receipt.status === 'success') return { status: 'settled', txHash: sent.txHash };
  if (receipt.status === 'reverted') return { status: 'failed', reason: 'reverted', message: `transaction ${sent.txHash} reverted`, txHash: sent.txHash };
  return { status: 'pending', txHash: sent.txHash, message: 'the transaction is not confirmed yet', mayHaveSent: true };
}
