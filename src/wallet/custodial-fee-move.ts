import type { Address } from 'viem';
import type { ChainPort } from '../chain/port.js';
import { relayOnce, type RelayOutcome } from '../chain/relay.js';
import { relayOwned, type OwnedRelayChain, type RelayAttempts } from '../chain/owned-relay.js';
import type { MoveOutcome, MoveRequest } from './custodial-move.js';

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
 * resend goes through the same batch adapter, so it carries the fee authorization (signed here
 * with its derived nonce) and never moves the principal alone.
 */
export interface FeeRequest {
  to: Address;
  value: bigint;
  /** Names the fee's EIP-3009 nonce, e.g. 'transfer-fee'. */
  kind: string;
}

export async function moveWithFeeOnce(chain: ChainPort, req: MoveRequest, fee: FeeRequest, timeoutMs?: number, attempts?: RelayAttempts): Promise<MoveOutcome> {
  const [principal, feeAuth] = await Promise.all([
    chain.signCustodialAuthorization({ fromIndex: req.fromIndex, to: req.to, value: req.value, nonce: chain.nonceFor(req.kind, req.id) }),
    chain.signCustodialAuthorization({ fromIndex: req.fromIndex, to: fee.to, value: fee.value, nonce: chain.nonceFor(fee.kind, req.id) }),
  ]);
  if (!principal.ok) return { status: 'pending', message: principal.message };
  if (!feeAuth.ok) return { status: 'pending', message: feeAuth.message };
  const feeSigned = { auth: feeAuth.auth, signature: feeAuth.signature };
  const batch: OwnedRelayChain = {
    submitTransferWithAuthorization: (auth, signature, opts) =>
      chain.submitTransferWithAuthorizations([{ auth, signature }, feeSigned], opts?.recordWithJournal ? { recordWithJournal: opts.recordWithJournal } : {}),
    waitForReceipt: (h, t) => chain.waitForReceipt(h, t),
    authorizationState: (a, n) => chain.authorizationState(a, n),
    // After a revert, "spent meanwhile" means the wallet no longer holds principal plus fee.
    balanceOf: async (a) => (await chain.balanceOf(a)) - fee.value,
    findAuthorizationTx: (a, n, o) => chain.findAuthorizationTx(a, n, o),
    chainTime: () => chain.chainTime(),
    transactionKnown: (h) => chain.transactionKnown(h),
  };
  const outcome: RelayOutcome = attempts
    ? await relayOwned(batch, attempts, {
        kind: req.kind,
        subject: req.id,
        from: chain.custodialAddress(req.fromIndex),
        nonce: chain.nonceFor(req.kind, req.id),
        sign: async () => principal,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      })
    : await relayOnce(batch, principal.auth, principal.signature, timeoutMs === undefined ? {} : { timeoutMs });
  switch (outcome.status) {
    case 'settled':
      return { status: 'settled', txHash: outcome.txHash };
    case 'pending':
      return outcome.txHash
        ? { status: 'pending', txHash: outcome.txHash, message: outcome.message }
        : { status: 'pending', message: outcome.message };
    case 'failed':
      return {
        status: 'failed',
        reason: outcome.spent || outcome.reason === 'insufficient_balance' ? 'insufficient_balance' : outcome.reason === 'reverted' ? 'reverted' : 'rejected',
        message: outcome.message,
      };
  }
}
