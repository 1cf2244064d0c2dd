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

export interface MoveRequest {
  /** Custodial wallet index that pays. */
  fromIndex: number;
  to: Address;
  value: bigint;
  /** The business operation, e.g. ('transfer', id): it names the EIP-3009 nonce, so it moves money once. */
  kind: string;
  id: string;
}

/** A request with what the chain derives from it. */
interface MoveParams extends MoveRequest {
  from: Address;
  nonce: Hex;
}

export async function moveOnce(chain: ChainService, req: MoveRequest, timeoutMs?: number): Promise<MoveOutcome> {
  // Both are derived (addresses are cached by the chain layer), so callers cannot pass a mismatch.
  const p: MoveParams = { ...req, from: chain.custodialAddress(req.fromIndex), nonce: chain.nonceFor(req.kind, req.id) };
  const res = await chain.custodialTransferAndWait(
    { fromIndex: p.fromIndex, to: p.to, value: p.value, nonce: p.nonce },
    timeoutMs,
  );
  if (res.ok) {
    if (res.receipt.status === 'success') return { status: 'settled', txHash: res.txHash };
    if (res.receipt.status === 'reverted') return afterRevert(chain, p, res.txHash);
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
      // A timeout or a connection lost after sending: the transaction may still be in the
      // pool and get mined, so "unused" now does not mean it failed.
      if (res.reason === 'submit_failed' && res.sendOutcome === 'unknown') {
        return res.txHash ? { status: 'pending', txHash: res.txHash, message: res.message } : { status: 'pending', message: res.message };
      }
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

/**
 * Our transaction reverted, which moved nothing by itself. Two causes are worth naming: another
 * transaction used the same authorization first (then the money did move), or concurrent
 * moves from the same wallet spent the balance between our checks and our inclusion.
 */
async function afterRevert(chain: ChainService, p: MoveParams, txHash: Hex): Promise<MoveOutcome> {
  const reverted = `transaction ${txHash} reverted`;
  try {
    if (await chain.authorizationState(p.from, p.nonce)) return alreadyMoved(chain, p);
    if ((await chain.balanceOf(p.from)) < p.value) {
      return { status: 'failed', reason: 'insufficient_balance', message: `${reverted}: the wallet no longer holds enough` };
    }
  } catch {
    return { status: 'pending', txHash, message: `${reverted}; the chain could not be asked why` };
  }
  return { status: 'failed', reason: 'reverted', message: reverted };
}

async function alreadyMoved(chain: ChainService, p: MoveParams): Promise<MoveOutcome> {
  const txHash = await chain.findAuthorizationTx(p.from, p.nonce).catch(() => undefined);
  return txHash
    ? { status: 'settled', txHash }
    : { status: 'pending', message: 'the authorization was used but its transaction was not found yet' };
}
