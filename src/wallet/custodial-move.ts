import type { Address, Hex } from 'viem';
import type { ChainService } from '../chain/chain.js';

/**
 * One custodial token movement with an exactly-once nonce, and its outcome in three
 * plain words. `failed` is returned only when the chain says nothing moved; when that
 * cannot be known (no receipt yet, RPC down after sending) the outcome is `pending`, and
 * calling `moveOnce` again with the same nonce is safe: the token accepts each
 * (authorizer, nonce) pair once, so a retry finds the first transaction instead of paying twice.
 */
export type MoveFailure = 'insufficient_balance' | 'reverted' | 'rejected';

export type MoveOutcome =
  | { status: 'settled'; txHash: Hex }
  | { status: 'pending'; txHash?: Hex; message: string }
  | { status: 'failed'; reason: MoveFailure; message: string };

export interface MoveParams {
  fromIndex: number;
  /** The custodial address at `fromIndex` (callers usually have it memoised). */
  from: Address;
  to: Address;
  value: bigint;
  nonce: Hex;
}

export async function moveOnce(chain: ChainService, p: MoveParams, timeoutMs?: number): Promise<MoveOutcome> {
  const res = await chain.custodialTransferAndWait(
    { fromIndex: p.fromIndex, to: p.to, value: p.value, nonce: p.nonce },
    timeoutMs,
  );
  if (res.ok) {
    if (res.receipt.status === 'success') return { status: 'settled', txHash: res.txHash };
    // A reverted transferWithAuthorization leaves the nonce unused: nothing moved.
    if (res.receipt.status === 'reverted') {
      return { status: 'failed', reason: 'reverted', message: `transaction ${res.txHash} reverted` };
    }
    return { status: 'pending', txHash: res.txHash, message: 'the transaction is not confirmed yet' };
  }
  switch (res.reason) {
    case 'insufficient_balance':
      return { status: 'failed', reason: 'insufficient_balance', message: res.message };
    case 'authorization_used':
      // An earlier attempt (before a crash or timeout) already moved the money.
      return alreadyMoved(chain, p);
    case 'chain_unavailable':
    case 'submit_failed': {
      // The node may have taken the transaction before failing to answer: ask the token.
      const used = await chain.authorizationState(p.from, p.nonce).catch(() => undefined);
      if (used === undefined) return { status: 'pending', message: res.message };
      if (used) return alreadyMoved(chain, p);
      return { status: 'failed', reason: 'rejected', message: res.message };
    }
    default:
      return { status: 'failed', reason: 'rejected', message: res.message };
  }
}

async function alreadyMoved(chain: ChainService, p: MoveParams): Promise<MoveOutcome> {
  const txHash = await chain.findAuthorizationTx(p.from, p.nonce).catch(() => undefined);
  return txHash
    ? { status: 'settled', txHash }
    : { status: 'pending', message: 'the authorization was used but its transaction was not found yet' };
}
