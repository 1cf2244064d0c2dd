import type { Address, Hex } from 'viem';
import type { TransferAuthorization } from '../chain/authorization.js';
import type { Tx } from '../store/index.js';
import type { ChainPort } from '../chain/port.js';
import { relayOnce, type RelayOutcome } from '../chain/relay.js';
import { relayOwned, type NewRelayAttempt, type OwnedRelayChain, type RelayAttempt, type RelayAttempts } from '../chain/owned-relay.js';
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

type Signed = { auth: TransferAuthorization; signature: Hex };

/** Both authorizations of a move and its fee, signed (nothing sent). */
export interface SignedWithFee {
  principal: Signed;
  fee: Signed;
}

export async function signWithFee(chain: ChainPort, req: MoveRequest, fee: FeeRequest): Promise<{ ok: true; signed: SignedWithFee } | { ok: false; message: string }> {
  const [principal, feeAuth] = await Promise.all([
    chain.signCustodialAuthorization({ fromIndex: req.fromIndex, to: req.to, value: req.value, nonce: chain.nonceFor(req.kind, req.id) }),
    chain.signCustodialAuthorization({ fromIndex: req.fromIndex, to: fee.to, value: fee.value, nonce: chain.nonceFor(fee.kind, req.id) }),
  ]);
  if (!principal.ok) return { ok: false, message: principal.message };
  if (!feeAuth.ok) return { ok: false, message: feeAuth.message };
  return { ok: true, signed: { principal: { auth: principal.auth, signature: principal.signature }, fee: { auth: feeAuth.auth, signature: feeAuth.signature } } };
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

/**
 * `prepared`: signed beforehand, its attempt opened by the caller (`opened`, in the transaction
 * that recorded the move: one commit fewer); `answerIn`: the caller writes the attempt's answer in
 * the transaction that records the outcome (one more).
 */
export interface PreparedMove {
  signed?: SignedWithFee;
  opened?: RelayAttempt;
  answerIn?: (write: (tx: Tx) => Promise<void>) => void;
}

export async function moveWithFeeOnce(
  chain: ChainPort,
  req: MoveRequest,
  fee: FeeRequest,
  timeoutMs?: number,
  attempts?: RelayAttempts,
  prepared: PreparedMove = {},
): Promise<MoveOutcome> {
  const s = prepared.signed ? { ok: true as const, signed: prepared.signed } : await signWithFee(chain, req, fee);
  if (!s.ok) return { status: 'pending', message: s.message };
  const principal = { ok: true as const, ...s.signed.principal };
  const feeSigned = s.signed.fee;
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
        ...(prepared.opened ? { opened: { row: prepared.opened, auth: principal.auth, signature: principal.signature } } : {}),
        ...(prepared.answerIn ? { answerIn: prepared.answerIn } : {}),
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
