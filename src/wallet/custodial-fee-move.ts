import type { ChainPort } from '../chain/chain-port.js';
import type { NewRelayAttempt, RelayAttempts } from '../chain/owned-relay.js';
import { moveOnce, type MoveFee, type MoveOutcome, type MoveRequest, type PreparedMove, type SignedWithFee } from './custodial-move.js';

export type { PreparedMove, SignedWithFee };

/**
 * A custodial move and its fee in one transaction (issue 23, point 3): two EIP-3009
 * authorizations from the same wallet, the principal to the recipient and the fee to the fee
 * wallet, relayed together through the token's `transferWithAuthorizations`, so both move or
 * neither does. Only when `chain.batchTransfers`; otherwise the caller moves them one by one.
 *
 * The outcome is read exactly as `moveOnce` reads a single move, through the principal's
 * authorization: the batch is all or none, so the principal's nonce used means the fee's is too.
 * Both nonces are derived from the operation ((kind, id) and (feeKind, id)), so calling again
 * after a `pending` can never pay twice: the token refuses a used nonce, which reverts the batch,
 * and the answer is the transaction that used it.
 *
 * With the attempt ledger the batch has one owner across instances like any custodial move
 * (src/chain/owned-relay.ts): the attempt is the principal's authorization, and a take-over's
 * resend carries the fee authorization too (relayOwned's `batchWith`, signed with its derived
 * nonce), so it never moves the principal alone. One relay path: this is `moveOnce` with a fee.
 */
export type FeeRequest = MoveFee;

/** Both authorizations of a move and its fee, signed (nothing sent). */
export async function signWithFee(chain: ChainPort, req: MoveRequest, fee: FeeRequest): Promise<{ ok: true; signed: SignedWithFee } | { ok: false; message: string }> {
  const [principal, feeAuth] = await Promise.all([
    chain.signCustodialAuthorization({ fromIndex: req.fromIndex, to: req.to, value: req.value, nonce: chain.nonceFor(req.kind, req.id) }),
    chain.signCustodialAuthorization({ fromIndex: req.fromIndex, to: fee.to, value: fee.value, nonce: chain.nonceFor(fee.kind, req.id) }),
  ]);
  if (!principal.ok) return { ok: false, message: principal.message };
  if (!feeAuth.ok) return { ok: false, message: feeAuth.message };
  const signed = { principal: { auth: principal.auth, signature: principal.signature }, fee: { auth: feeAuth.auth, signature: feeAuth.signature } };
  // Signed ahead of the move: its simulation is asked now, in the round trip of the caller's balance
  // read (the submit sends on it while fresh; the same items, in relayOnce's order).
  chain.simulateTransfers?.([signed.principal, signed.fee]);
  return { ok: true, signed };
}

/** The attempt row for a signed move (`attempts.open` in the transaction that records it). */
export function attemptFor(req: MoveRequest, signed: SignedWithFee): NewRelayAttempt {
  const a = signed.principal.auth;
  return {
    kind: req.kind,
    subject: req.id,
    payer: a.from,
    nonce: a.nonce,
    validBefore: a.validBefore,
    authorization: { from: a.from, to: a.to, value: a.value.toString(), validAfter: a.validAfter.toString(), validBefore: a.validBefore.toString(), nonce: a.nonce },
    signature: signed.principal.signature,
  };
}

/** `moveOnce` with the fee in the same transaction (relayOnce's `batchWith`), optionally prepared by the caller. */
export function moveWithFeeOnce(
  chain: ChainPort,
  req: MoveRequest,
  fee: FeeRequest,
  timeoutMs?: number,
  attempts?: RelayAttempts,
  prepared: PreparedMove = {},
): Promise<MoveOutcome> {
  return moveOnce(chain, req, timeoutMs, attempts, fee, prepared);
}
