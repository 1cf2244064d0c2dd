import type { Address, Hex } from 'viem';
import type { ChainPort } from '../chain/chain-port.js';
import type { SignedAuthorization } from '../chain/chain-port.js';
import { relayOnce, type RelayOutcome } from '../chain/relay.js';
import { PaymentReason, type MoveFailure } from '../lib/payment-reasons.js';
import { relayOwned, type RelayAttempt, type RelayAttempts } from '../chain/owned-relay.js';
import type { Tx } from '../store/index.js';

/**
 * One custodial token movement with an exactly-once nonce, and its outcome in three
 * plain words. `failed` is returned only when the chain says nothing moved; when that
 * cannot be known (no receipt yet, RPC down after sending) the outcome is `pending`, and
 * calling `moveOnce` again with the same nonce is safe: the token accepts each
 * (authorizer, nonce) pair once, so a retry finds the first transaction instead of paying twice.
 *
 * With the attempt ledger (`attempts`, wired by src/core/build.ts) the move has one owner across
 * instances (src/chain/owned-relay.ts, issue 21): a retry, a reconcile pass or another instance
 * never sends it again or calls it failed while the owner's transaction could still land.
 */
export type { MoveFailure };

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

/** A fee relayed in the same transaction as the move (custodial-fee-move.ts). */
export interface MoveFee {
  to: Address;
  value: bigint;
  /** Names the fee's EIP-3009 nonce, e.g. 'transfer-fee'. */
  kind: string;
}

/** Both authorizations of a move and its fee, signed beforehand (nothing sent). */
export interface SignedWithFee {
  principal: SignedAuthorization;
  fee: SignedAuthorization;
}

/**
 * Work the caller did ahead of the move (issue 23, one commit fewer each): `signed` beforehand,
 * its attempt `opened` by the caller in the transaction that recorded the move; `answerIn`: the
 * caller writes the attempt's answer in the transaction that records the outcome.
 */
export interface PreparedMove {
  signed?: SignedWithFee;
  opened?: RelayAttempt;
  answerIn?: (write: (tx: Tx) => Promise<void>) => void;
}

export async function moveOnce(
  chain: ChainPort,
  req: MoveRequest,
  timeoutMs?: number,
  attempts?: RelayAttempts,
  fee?: MoveFee,
  prepared: PreparedMove = {},
): Promise<MoveOutcome> {
  // Both are derived (addresses are cached by the chain layer), so callers cannot pass a mismatch.
  const p: MoveParams = { ...req, from: chain.custodialAddress(req.fromIndex), nonce: chain.nonceFor(req.kind, req.id) };
  const pre = prepared.signed;
  const sign = pre
    ? async () => ({ ok: true as const, ...pre.principal })
    : () => chain.signCustodialAuthorization({ fromIndex: p.fromIndex, to: p.to, value: p.value, nonce: p.nonce });
  // The fee is signed before anything is sent, with its derived nonce: a take-over's resend
  // carries it too, so the principal never moves alone.
  let batchWith: SignedAuthorization[] | undefined;
  if (fee && pre) batchWith = [pre.fee];
  else if (fee) {
    const feeSigned = await chain.signCustodialAuthorization({ fromIndex: p.fromIndex, to: fee.to, value: fee.value, nonce: chain.nonceFor(fee.kind, req.id) });
    if (!feeSigned.ok) return { status: 'pending', message: feeSigned.message };
    batchWith = [{ auth: feeSigned.auth, signature: feeSigned.signature }];
  }
  const relayOpts = { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(batchWith ? { batchWith } : {}) };
  let outcome: RelayOutcome;
  if (attempts) {
    outcome = await relayOwned(chain, attempts, {
      kind: p.kind,
      subject: p.id,
      from: p.from,
      nonce: p.nonce,
      sign,
      ...(prepared.opened && pre ? { opened: { row: prepared.opened, auth: pre.principal.auth, signature: pre.principal.signature } } : {}),
      ...(prepared.answerIn ? { answerIn: prepared.answerIn } : {}),
      ...relayOpts,
    });
  } else {
    const signed = await sign();
    if (!signed.ok) return { status: 'pending', message: signed.message };
    outcome = await relayOnce(chain, signed.auth, signed.signature, relayOpts);
  }
  switch (outcome.status) {
    case 'settled':
      return { status: 'settled', txHash: outcome.txHash };
    case 'pending':
      return outcome.txHash
        ? { status: 'pending', txHash: outcome.txHash, message: outcome.message }
        : { status: 'pending', message: outcome.message };
    case 'failed':
      return { status: 'failed', reason: moveFailureOf(outcome), message: outcome.message };
  }
}

/** What a failed relay means to the owner of a custodial move: too little money, a revert, or refused. */
export function moveFailureOf(outcome: Extract<RelayOutcome, { status: 'failed' }>): MoveFailure {
  if (outcome.spent || outcome.reason === PaymentReason.insufficientBalance) return PaymentReason.insufficientBalance;
  return outcome.reason === PaymentReason.reverted ? PaymentReason.reverted : PaymentReason.rejected;
}
