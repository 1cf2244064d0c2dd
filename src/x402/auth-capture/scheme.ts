/**
 * The `auth-capture` scheme on EVM as two functions over a small port, like exact-evm.ts:
 * `verifyAuthCapture` answers one verdict, `settleAuthCapture` re-verifies, sends the escrow call
 * from our relayer (the operator), waits for the receipt and answers one final SettleResponse.
 * Checks (checks.ts) are kept apart from effects (here).
 *
 * - collect payload -> `authorize(paymentInfo, amount, collector, signature)`: the client's
 *   ReceiveWithAuthorization is its consent;
 * - `payload.type` capture / void / refund -> the escrow call of that name, consented by the
 *   receiver authorizer's EIP-712 signature. A refund pulls its liquidity from the operator (our
 *   relayer) through the OperatorRefundCollector, so it is relayed only under a funding agreement
 *   (`ctx.refundFunding`: the refunds API, which moves the merchant's money to the operator first). When the receiver authorizer is ours (advertised in
 *   `/supported`) and the payload omits the signature, we produce it, but only for a request the
 *   caller authenticated out of band (`ctx.delegated`: the merchant's secret key that authorized it).
 */
import { decodeErrorResult, encodeFunctionData, isAddressEqual, type Address, type Hex } from 'viem';
import { authCaptureEscrowAbi } from '../../chain/artifacts/auth-capture.js';
import type { ReceiptOutcome } from '../../chain/chain-results.js';
import type { RelayerCallFailure, RelayerCallPort } from '../../chain/chain.js';
import { contractCall, relayOnce } from '../../chain/relay.js';
import type { FacilitatorRequest, SettleResponse, VerifyResponse } from '../x402-schemas.js';
import { AuthCaptureReason as R } from './auth-capture-reasons.js';
import { ESCROW_ERROR_REASON } from './auth-capture-reasons.js';
import { checkCollect, checkLifecycle, isLifecycle, SKEW_SECONDS, type AuthCaptureTerms, type Refusal } from './checks.js';
import { authorizerTypedData, infoArg, type AuthorizerMessage } from './payment-info.js';
import type { PaymentInfo } from './auth-capture-schemas.js';

export interface PaymentState {
  collected: boolean;
  capturable: bigint;
  refundable: bigint;
}

export interface AuthCapturePort extends AuthCaptureTerms {
  call: RelayerCallPort;
  /** ECDSA or ERC-1271 (viem's verifyTypedData against the node). */
  verifyTypedData(signer: Address, typed: { domain: object; types: object; primaryType: string; message: object }, signature: Hex): Promise<boolean>;
  balanceOf(a: Address): Promise<bigint>;
  paymentState(hash: Hex): Promise<PaymentState>;
  waitForReceipt(txHash: Hex, timeoutMs?: number): Promise<ReceiptOutcome>;
}

export type Operation = 'authorize' | 'capture' | 'void' | 'refund';

/** A payload that passed every check: the escrow call(s) settle sends. */
export interface VerifiedOperation {
  operation: Operation;
  payer: Address;
  info: PaymentInfo;
  hash: Hex;
  /** authorize: the maximum; capture: the amount captured; void: what the hold had left; refund: the amount refunded. */
  amount: bigint;
  call: { to: Address; data: Hex };
  /** capture with `voidAuthorizerSignature`: the void that follows in the same settle. */
  thenVoid?: { to: Address; data: Hex };
}

export interface AuthCaptureContext {
  /** The caller authenticated this request as the payment's merchant: we may sign as its receiver authorizer. */
  delegated: (hash: Hex) => Promise<boolean>;
  /**
   * The binding's "Refund funding" for a delegated operator: true when `amount` for this payment is
   * covered by a funding agreement (the operator already holds the receiver's money for it and has
   * approved the refund collector for it). Absent: no agreement, refunds are refused.
   */
  refundFunding?: (hash: Hex, amount: bigint) => Promise<boolean>;
  nowSeconds?: number;
}

export type Verdict = { ok: true; op: VerifiedOperation } | Refusal;

const no = (reason: Refusal['reason'], message: string, payer?: Address): Refusal => (payer ? { ok: false, reason, message, payer } : { ok: false, reason, message });

/** A refused simulation, with the escrow's custom error mapped to the binding's reason. */
function simulationRefusal(f: RelayerCallFailure, payer: Address): Refusal {
  if (f.reason === 'unavailable') return no(R.simulationFailed, `the chain could not simulate: ${f.message}`, payer);
  if (f.data) {
    try {
      const e = decodeErrorResult({ abi: authCaptureEscrowAbi, data: f.data });
      const reason = ESCROW_ERROR_REASON[e.errorName];
      if (reason) return no(reason, `the escrow refuses: ${e.errorName}`, payer);
    } catch {
      /* not the escrow's own error */
    }
  }
  return no(R.simulationFailed, `the escrow call reverts: ${f.message}`, payer);
}

/** The receiver authorizer's consent: the payload's signature, or ours under delegation. */
async function consent(port: AuthCapturePort, ctx: AuthCaptureContext, receiverAuthorizer: Address, hash: Hex, m: AuthorizerMessage, given: Hex | undefined, payer: Address, reason: Refusal['reason']): Promise<Refusal | undefined> {
  const typed = authorizerTypedData(port.chainId, port.operator, m);
  if (given) return (await port.verifyTypedData(receiverAuthorizer, typed, given)) ? undefined : no(reason, 'the authorizer signature does not recover to extra.receiverAuthorizer', payer);
  if (!isAddressEqual(receiverAuthorizer, port.operator)) return no(reason, 'authorizerSignature is required', payer);
  if (!(await ctx.delegated(hash))) return no(R.unauthenticatedAuthorizerRequest, 'the receiver authorizer is delegated to this facilitator and this request is not authenticated as the payment\'s merchant', payer);
  // Produced and checked here; nothing else reads it (delegated: the facilitator is the gate).
  await port.call.signTypedData(typed as never);
  return undefined;
}

export async function verifyAuthCapture(port: AuthCapturePort, req: FacilitatorRequest, ctx: AuthCaptureContext): Promise<Verdict> {
  const now = ctx.nowSeconds ?? Math.floor(Date.now() / 1000);
  const escrow = port.escrow;
  if (!isLifecycle(req)) {
    const c = checkCollect(port, req, now);
    if (!c.ok) return c;
    const a = c.payload.authorization;
    // Step 11: the payer's signature over ReceiveWithAuthorization (ERC-1271 wallets too).
    const typed = {
      domain: { name: port.eip712Domain.name, version: port.eip712Domain.version, chainId: port.chainId, verifyingContract: port.tokenAddress },
      types: { ReceiveWithAuthorization: [{ name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'ReceiveWithAuthorization',
      message: { from: a.from, to: a.to, value: a.value, validAfter: a.validAfter, validBefore: a.validBefore, nonce: a.nonce },
    };
    if (!(await port.verifyTypedData(a.from, typed, c.payload.signature))) return no(R.signature, 'the signature does not recover to authorization.from', c.payer);
    if ((await port.balanceOf(a.from)) < a.value) return no(R.insufficientBalance, 'the payer holds less than the amount', c.payer);
    const call = { to: escrow, data: encodeFunctionData({ abi: authCaptureEscrowAbi, functionName: 'authorize', args: [infoArg(c.info), c.amount, port.eip3009Collector, c.payload.signature] }) };
    const sim = await port.call.simulate(call);
    if (!sim.ok) return simulationRefusal(sim, c.payer);
    return { ok: true, op: { operation: 'authorize', payer: c.payer, info: c.info, hash: c.hash, amount: c.amount, call } };
  }

  const c = checkLifecycle(port, req);
  if (!c.ok) return c;
  const p = c.payload;
  const ra = c.extra.receiverAuthorizer!;
  const state = await port.paymentState(c.hash);
  const info = infoArg(c.info);
  if (p.type === 'refund') {
    // Refund funding first: without an agreement the operator (our relayer) would be the source of value.
    if (!ctx.refundFunding || !(await ctx.refundFunding(c.hash, p.amount))) {
      return no(R.refundFundingUnavailable, 'no funding agreement covers this refund (a delegated operator refunds only what the receiver has funded: checkout sessions refund through the refunds API)', c.payer);
    }
    const m: AuthorizerMessage = {
      primaryType: 'Refund',
      message: { paymentInfoHash: c.hash, amount: p.amount, tokenCollector: port.operatorRefundCollector, expectedCapturableAmount: p.expectedCapturableAmount, expectedRefundableAmount: p.expectedRefundableAmount },
    };
    const refused = await consent(port, ctx, ra, c.hash, m, p.authorizerSignature, c.payer, R.authorizerSignature);
    if (refused) return refused;
    if (now >= c.info.refundExpiry - SKEW_SECONDS) return no(R.refundDeadlineExpired, 'the refund deadline has passed', c.payer);
    if (p.amount === 0n || p.amount > state.refundable) return no(R.refundExceedsCapture, `0 < amount <= ${state.refundable} (what was captured and not refunded)`, c.payer);
    if (state.capturable !== p.expectedCapturableAmount || state.refundable !== p.expectedRefundableAmount) {
      return no(R.unexpectedPaymentState, `the escrow holds ${state.capturable} capturable and ${state.refundable} refundable, not what was signed`, c.payer);
    }
    const call = { to: escrow, data: encodeFunctionData({ abi: authCaptureEscrowAbi, functionName: 'refund', args: [info, p.amount, port.operatorRefundCollector, '0x'] }) };
    const sim = await port.call.simulate(call);
    if (!sim.ok) return simulationRefusal(sim, c.payer);
    return { ok: true, op: { operation: 'refund', payer: c.payer, info: c.info, hash: c.hash, amount: p.amount, call } };
  }
  if (p.type === 'void') {
    const refused = await consent(port, ctx, ra, c.hash, { primaryType: 'Void', message: { paymentInfoHash: c.hash } }, p.authorizerSignature, c.payer, R.authorizerSignature);
    if (refused) return refused;
    if (state.capturable === 0n) return no(R.zeroAuthorization, 'nothing is held for this payment', c.payer);
    const call = { to: escrow, data: encodeFunctionData({ abi: authCaptureEscrowAbi, functionName: 'void', args: [info] }) };
    const sim = await port.call.simulate(call);
    if (!sim.ok) return simulationRefusal(sim, c.payer);
    return { ok: true, op: { operation: 'void', payer: c.payer, info: c.info, hash: c.hash, amount: state.capturable, call } };
  }
  // capture
  const m: AuthorizerMessage = {
    primaryType: 'Capture',
    message: { paymentInfoHash: c.hash, amount: p.amount, feeBps: p.feeBps!, feeReceiver: p.feeReceiver, expectedCapturableAmount: p.expectedCapturableAmount, expectedRefundableAmount: p.expectedRefundableAmount },
  };
  const refused = await consent(port, ctx, ra, c.hash, m, p.authorizerSignature, c.payer, R.authorizerSignature);
  if (refused) return refused;
  if (p.voidAuthorizerSignature !== undefined) {
    const v = await consent(port, ctx, ra, c.hash, { primaryType: 'Void', message: { paymentInfoHash: c.hash } }, p.voidAuthorizerSignature, c.payer, R.voidAuthorizerSignature);
    if (v) return v;
  }
  if (now >= c.info.authorizationExpiry - SKEW_SECONDS) return no(R.captureDeadlineExpired, 'the capture deadline has passed', c.payer);
  if (p.amount === 0n || p.amount > state.capturable) return no(R.insufficientAuthorization, `0 < amount <= ${state.capturable} (what is held)`, c.payer);
  if (state.capturable !== p.expectedCapturableAmount || state.refundable !== p.expectedRefundableAmount) {
    return no(R.unexpectedPaymentState, `the escrow holds ${state.capturable} capturable and ${state.refundable} refundable, not what was signed`, c.payer);
  }
  if (p.voidAuthorizerSignature && p.amount === state.capturable) return no(R.voidRemainderFullCapture, 'a full capture leaves nothing to void', c.payer);
  const call = { to: escrow, data: encodeFunctionData({ abi: authCaptureEscrowAbi, functionName: 'capture', args: [info, p.amount, p.feeBps!, p.feeReceiver] }) };
  const sim = await port.call.simulate(call);
  if (!sim.ok) return simulationRefusal(sim, c.payer);
  const thenVoid = p.voidAuthorizerSignature ? { to: escrow, data: encodeFunctionData({ abi: authCaptureEscrowAbi, functionName: 'void', args: [info] }) } : undefined;
  return { ok: true, op: { operation: 'capture', payer: c.payer, info: c.info, hash: c.hash, amount: p.amount, call, ...(thenVoid ? { thenVoid } : {}) } };
}

export function verifyResponseOf(v: Verdict): VerifyResponse {
  if (v.ok) return { isValid: true, payer: v.op.payer };
  return { isValid: false, invalidReason: v.reason, invalidMessage: v.message, ...(v.payer ? { payer: v.payer } : {}) };
}

/** A SettleResponse with the scheme's extra fields: the operation and the amount it settled. */
export type AuthCaptureSettleResponse = SettleResponse & { amount?: string; operation?: Operation; paymentInfoHash?: string };

/** Relays one verified call (the one relay path, chain/relay.ts) and waits: the hash, or why it did not succeed. */
async function sendAndWait(port: AuthCapturePort, call: { to: Address; data: Hex }, timeoutMs?: number, onStep?: (step: 'sent' | 'mined') => void, onSent?: (txHash: Hex) => Promise<void>): Promise<{ ok: true; txHash: Hex } | { ok: false; reason: string; message: string; txHash?: Hex }> {
  const relayed = await relayOnce(port, contractCall(call), {
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    onSent: async (txHash) => {
      await onSent?.(txHash);
      onStep?.('sent');
    },
  });
  if (relayed.status === 'settled') {
    onStep?.('mined');
    return { ok: true, txHash: relayed.txHash };
  }
  if (relayed.status === 'pending') {
    return { ok: false, reason: R.settlementPending, message: 'sent, not mined within the wait; settle the same payload again to read the outcome', ...(relayed.txHash ? { txHash: relayed.txHash } : {}) };
  }
  if (relayed.txHash) return { ok: false, reason: R.transactionReverted, message: 'the escrow call reverted on-chain', txHash: relayed.txHash };
  return { ok: false, reason: relayed.cause === 'chain_unavailable' ? R.unexpectedSettleError : R.transactionReverted, message: relayed.message };
}

export interface AuthCaptureSettleOptions {
  receiptTimeoutMs?: number;
  /** Called with the verified operation before anything is sent (a durable record of what is about to happen). */
  beforeSend?: (op: VerifiedOperation) => Promise<void>;
  /** Called when the main call was sent and when it was mined (the kill -9 tests stop the process there). */
  onStep?: (op: VerifiedOperation, step: 'sent' | 'mined') => void;
  /** Called with the main call's hash as soon as it is sent (a refund keeps it before waiting). */
  onSent?: (op: VerifiedOperation, txHash: Hex) => Promise<void>;
}

/** Re-verifies, sends, waits up to the timeout for the receipt, answers once. */
export async function settleAuthCapture(port: AuthCapturePort, req: FacilitatorRequest, ctx: AuthCaptureContext, opts: AuthCaptureSettleOptions = {}): Promise<AuthCaptureSettleResponse> {
  const network = `eip155:${port.chainId}`;
  const v = await verifyAuthCapture(port, req, ctx);
  if (!v.ok) return { success: false, errorReason: v.reason, errorMessage: v.message, ...(v.payer ? { payer: v.payer } : {}), transaction: '', network };
  const op = v.op;
  await opts.beforeSend?.(op);
  const done = await sendAndWait(port, op.call, opts.receiptTimeoutMs, (step) => opts.onStep?.(op, step), opts.onSent ? (h) => opts.onSent!(op, h) : undefined);
  const base = { payer: op.payer, network, operation: op.operation, paymentInfoHash: op.hash };
  if (!done.ok) return { ...base, success: false, errorReason: done.reason, errorMessage: done.message, transaction: done.txHash ?? '' };
  if (op.thenVoid) {
    // Sync capture-and-void: a second transaction under this settle; a hold emptied meanwhile is capture-only success.
    const left = await port.paymentState(op.hash);
    if (left.capturable > 0n) await sendAndWait(port, op.thenVoid, opts.receiptTimeoutMs);
  }
  return { ...base, success: true, transaction: done.txHash, amount: op.amount.toString() };
}
