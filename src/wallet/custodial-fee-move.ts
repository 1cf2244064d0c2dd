import type { ChainPort } from '../chain/port.js';
import type { RelayAttempts } from '../chain/owned-relay.js';
import { moveOnce, type MoveFee, type MoveOutcome, type MoveRequest } from './custodial-move.js';

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

/** `moveOnce` with the fee in the same transaction (relayOnce's `batchWith`). */
export function moveWithFeeOnce(chain: ChainPort, req: MoveRequest, fee: FeeRequest, timeoutMs?: number, attempts?: RelayAttempts): Promise<MoveOutcome> {
  return moveOnce(chain, req, timeoutMs, attempts, fee);
}
