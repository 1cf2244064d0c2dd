/**
 * Refunds of manual-capture (auth-capture) payments, the escrow side (docs/x402.md "Refunds",
 * docs/refunds.md). The binding's refund is `AuthCaptureEscrow.refund(paymentInfo, amount,
 * OperatorRefundCollector, "")` sent by the operator (our relayer), the collector pulling `amount`
 * from the operator with its ERC-20 allowance, the escrow forwarding it to the payer.
 *
 * Our funding agreement (the binding's "Refund funding" for a delegated operator): the refunds
 * service first moves exactly `amount` from the merchant's settlement wallet (where the capture
 * paid) to the operator, once (EIP-3009 nonce of the refund id); only then does this module
 * approve the collector for exactly `amount` and send the escrow refund, under `refundFunding`
 * naming that payment and amount. The approval is consumed by the pull, so a repeated send can
 * never pull a second time from the operator: a refund never spends the service's money.
 *
 * Exactly once: a refund's escrow call is keyed by the balances it expects (the binding's
 * single-use check), the snapshot and the hash kept on the refund before waiting; a retry reads
 * the receipt or the escrow's books before sending anything again. One escrow refund at a time in
 * this process (the collector's allowance is one number per operator).
 */
import { encodeFunctionData, erc20Abi, type Address, type Hex } from 'viem';
import { contractCall, relayOnce } from '../../chain/relay.js';
import type { AuthCaptureService } from './auth-capture-service.js';
import { AuthCaptureReason as R } from './auth-capture-reasons.js';
import { SKEW_SECONDS } from './checks.js';
import { lifecycleRequest } from './manual-capture-sessions.js';

/** The escrow's books at the moment an attempt was made: the binding's single-use key. */
export interface EscrowSnapshot {
  capturable: string;
  refundable: string;
}

/** What the refunds service keeps of an escrow refund between attempts. */
export interface EscrowProgress {
  snapshot?: EscrowSnapshot;
  txHash?: string;
}

export type EscrowRefundOutcome =
  /** `txHash` unknown only when the process stopped between sending and keeping it: the escrow's books show it landed. */
  | { status: 'succeeded'; txHash?: Hex }
  | { status: 'pending'; txHash?: Hex; message: string }
  /** Refused before anything moved out of the operator; `permanent`: retrying cannot succeed (deadline, nothing refundable). */
  | { status: 'refused'; permanent: boolean; reason: string; message: string };

export interface EscrowTerms {
  capturable: bigint;
  refundable: bigint;
  /** Unix seconds: `paymentInfo.refundExpiry`. */
  refundExpiry: number;
  payer: Address;
}

const PERMANENT = new Set<string>([R.refundDeadlineExpired, R.refundExceedsCapture]);

export class EscrowRefunds {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly ac: AuthCaptureService, private readonly receiptTimeoutMs?: number) {}

  /** The operator the merchant funds (our relayer). */
  get operator(): Address {
    return this.ac.port.operator;
  }

  /** The escrow's books and the refund deadline of the payment, or undefined when we do not operate it. */
  async terms(hash: string): Promise<EscrowTerms | undefined> {
    const rec = await this.ac.record(hash);
    if (!rec) return undefined;
    const s = await this.ac.port.paymentState(hash as Hex);
    return { capturable: s.capturable, refundable: s.refundable, refundExpiry: Number(rec.paymentInfo.refundExpiry), payer: rec.payer as Address };
  }

  /** One escrow refund of `amount` (already funded at the operator), serialized in this process. */
  refund(a: { accountId: string; paymentId: string; hash: string; amount: bigint }, prev: EscrowProgress, save: (p: EscrowProgress) => Promise<void>): Promise<EscrowRefundOutcome> {
    const run = this.queue.then(() => this.refundNow(a, prev, save));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async refundNow(a: { accountId: string; paymentId: string; hash: string; amount: bigint }, prev: EscrowProgress, save: (p: EscrowProgress) => Promise<void>): Promise<EscrowRefundOutcome> {
    const port = this.ac.port;
    const rec = await this.ac.record(a.hash);
    if (!rec) return { status: 'refused', permanent: true, reason: 'not_found', message: 'the authorization record is missing' };
    const hash = a.hash as Hex;
    // An earlier attempt: its receipt, or the escrow's books, say whether it landed.
    if (prev.snapshot) {
      const landed = async () => {
        const s = await port.paymentState(hash);
        return s.capturable === BigInt(prev.snapshot!.capturable) && s.refundable === BigInt(prev.snapshot!.refundable) - a.amount;
      };
      if (prev.txHash) {
        const r = await port.waitForReceipt(prev.txHash as Hex, this.receiptTimeoutMs);
        if (r.status === 'success') return { status: 'succeeded', txHash: prev.txHash as Hex };
        if (r.status !== 'reverted') return { status: 'pending', txHash: prev.txHash as Hex, message: 'the escrow refund is not mined yet' };
      } else if (await landed()) {
        // Sent, then the process stopped before the hash was kept: the books show it moved.
        return { status: 'succeeded' };
      }
    }
    const s = await port.paymentState(hash);
    const now = Math.floor(Date.now() / 1000);
    if (now >= Number(rec.paymentInfo.refundExpiry) - SKEW_SECONDS) return { status: 'refused', permanent: true, reason: R.refundDeadlineExpired, message: 'the refund deadline has passed' };
    if (s.refundable < a.amount) return { status: 'refused', permanent: true, reason: R.refundExceedsCapture, message: `the escrow can refund at most ${s.refundable}` };
    const snapshot = { capturable: s.capturable.toString(), refundable: s.refundable.toString() };
    await save({ snapshot });
    // Exactly this refund's amount: the pull consumes it, nothing else of the operator's can go.
    const approve = await this.send({ to: port.tokenAddress, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [port.operatorRefundCollector, a.amount] }) });
    if (!approve.ok) return { status: 'pending', message: `the collector approval did not go through: ${approve.message}` };
    const req = lifecycleRequest(port, rec, { type: 'refund', amount: a.amount.toString(), expectedCapturableAmount: snapshot.capturable, expectedRefundableAmount: snapshot.refundable });
    const settle = await this.ac.settle({ accountId: a.accountId, paymentId: a.paymentId }, req, {
      refundFunding: async (h, amount) => h === hash && amount === a.amount,
      onSent: (txHash) => save({ snapshot, txHash }),
    });
    if (settle.success) return { status: 'succeeded', txHash: settle.transaction as Hex };
    const reason = settle.errorReason ?? 'unexpected_settle_error';
    if (reason === R.settlementPending) return { status: 'pending', ...(settle.transaction ? { txHash: settle.transaction as Hex } : {}), message: settle.errorMessage ?? 'not mined yet' };
    if (PERMANENT.has(reason)) return { status: 'refused', permanent: true, reason, message: settle.errorMessage ?? reason };
    // A revert or a moved snapshot: nothing left the operator; the next attempt starts afresh.
    return { status: 'refused', permanent: false, reason, message: settle.errorMessage ?? reason };
  }

  /**
   * Gives funding that no escrow refund used back to the merchant's wallet (a refund refused after
   * its funding moved, e.g. past the refund deadline): one ERC-20 transfer from the operator, its
   * hash kept before waiting so it is never sent twice.
   */
  returnFunding(to: Address, amount: bigint, prevTx: string | undefined, save: (txHash: string) => Promise<void>): Promise<{ status: 'succeeded' | 'pending'; txHash?: Hex; message?: string }> {
    const run = this.queue.then(async () => {
      const port = this.ac.port;
      if (prevTx) {
        const r = await port.waitForReceipt(prevTx as Hex, this.receiptTimeoutMs);
        if (r.status === 'success') return { status: 'succeeded' as const, txHash: prevTx as Hex };
        if (r.status !== 'reverted') return { status: 'pending' as const, txHash: prevTx as Hex, message: 'the return of the funding is not mined yet' };
      }
      const relayed = await relayOnce(port, contractCall({ to: port.tokenAddress, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) }), {
        ...this.wait,
        onSent: (txHash) => save(txHash),
      });
      if (relayed.status === 'settled') return { status: 'succeeded' as const, txHash: relayed.txHash };
      if (!relayed.txHash) return { status: 'pending' as const, message: relayed.message };
      return { status: 'pending' as const, txHash: relayed.txHash, message: 'not mined yet' };
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async send(call: { to: Address; data: Hex }): Promise<{ ok: true } | { ok: false; message: string }> {
    const relayed = await relayOnce(this.ac.port, contractCall(call), this.wait);
    if (relayed.status === 'settled') return { ok: true };
    if (!relayed.txHash) return { ok: false, message: relayed.message };
    return { ok: false, message: `transaction ${relayed.txHash}: ${relayed.status === 'failed' ? 'reverted' : 'timeout'}` };
  }

  private get wait(): { timeoutMs?: number } {
    return this.receiptTimeoutMs !== undefined ? { timeoutMs: this.receiptTimeoutMs } : {};
  }
}
