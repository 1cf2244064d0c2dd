/**
 * The settlement reconciler's pass (run at start and periodically by the scheduler, under a
 * store lease): every `processing` payment is decided from its attempt and the chain
 * (processing-resolver.ts, attempt-decision.ts): money moved -> `settled`; our transaction
 * reverted -> `failed`; the window closed unused -> `failed`; someone may still be working on it
 * -> left `processing`; its owner gone past the deadline with nothing on its way -> the stored
 * authorization is sent again from here. Then every `pending` payment with a settle attempt:
 * settled from the chain if one of its authorizations was used, `expired` once none can be.
 */
import type { ChainPort } from '../chain/chain-port.js';
import { hasSettleAttempt, type Payment, type PaymentsService } from '../payments/payments.js';
import type { Logger } from '../lib/logger.js';
import type { ProcessingResolver } from './processing-resolver.js';
import { SettleReason, validBeforeOf, type ReconcileSummary } from './settle-reasons.js';

export interface ReconcilerDeps {
  payments: PaymentsService;
  chain: ChainPort;
  resolver: ProcessingResolver;
  log: Logger;
  /** Receipt wait per payment. */
  waitMs: number;
  /** A settle of this payment runs in this process now: skipped for this pass only. */
  busyHere(paymentId: string): boolean;
  /** A payment of the mode this settlement's chain serves (the other chain's instance reconciles the rest). */
  mine(p: Payment): boolean;
  /** Runs `fn` in the payment's per-process queue. */
  serialized<T>(paymentId: string, fn: () => Promise<T>): Promise<T>;
}

export class SettlementReconciler {
  constructor(private readonly d: ReconcilerDeps) {}

  async pass(): Promise<ReconcileSummary> {
    const summary: ReconcileSummary = { checked: 0, settled: 0, failed: 0, pending: 0, processing: 0, expired: 0 };
    // Checked once per pass: a processing payment put back to pending is not checked again.
    const seen = new Set<string>();
    const run = (p: Payment, resolve: (id: string) => Promise<keyof Omit<ReconcileSummary, 'checked'>>) =>
      this.d.serialized(p.id, async () => {
        summary.checked++;
        summary[await resolve(p.id)]++;
      }).catch((err) => this.d.log.error({ err, paymentId: p.id }, 'reconcile failed for a payment'));
    // Only the rows this pass is about, a page at a time through an index (payments.ts). A
    // settle running here is skipped for this pass only; whether an attempt is over is decided
    // from the ledger and the chain, never from this process's queue.
    for await (const page of this.d.payments.processing()) {
      // A payment paid into its deposit address is the deposit watcher's to resolve.
      const todo = page.filter((p) => this.d.mine(p) && !this.d.busyHere(p.id) && !p.viaDeposit);
      for (const p of todo) seen.add(p.id);
      await Promise.all(todo.map((p) => run(p, (id) => this.resolveProcessingById(id, this.d.waitMs))));
    }
    for await (const page of this.d.payments.pendingWithAttempts()) {
      const todo = page.filter((p) => this.d.mine(p) && !this.d.busyHere(p.id) && !seen.has(p.id));
      await Promise.all(todo.map((p) => run(p, (id) => this.resolvePendingAttempt(id, this.d.waitMs))));
    }
    if (summary.checked > 0) this.d.log.info(summary, 'settlement reconcile pass');
    return summary;
  }

  private async resolveProcessingById(paymentId: string, waitMs: number): Promise<'settled' | 'failed' | 'pending' | 'processing'> {
    const p = await this.d.payments.get(paymentId);
    if (!p || p.status !== 'processing') return 'processing';
    const r = await this.d.resolver.resolve(p, waitMs);
    if (r.ok) return r.payment.status === 'settled' ? 'settled' : 'processing';
    if (r.reason === SettleReason.reverted || r.reason === SettleReason.expired) return 'failed';
    if (r.reason === SettleReason.submitFailed || r.reason === SettleReason.authorizationCanceled || r.reason === SettleReason.insufficientBalance) return 'pending';
    return 'processing';
  }

  /**
   * A `pending` payment that had a settle attempt: if one of its payers' authorizations was used
   * on-chain, settle from the chain (even past the session expiry: the money moved). Once chain
   * time has passed `validBefore` and none was used, none can be any more: store `expired`
   * (the sweeper leaves these payments to us).
   */
  private async resolvePendingAttempt(paymentId: string, waitMs: number): Promise<keyof Omit<ReconcileSummary, 'checked'>> {
    const p = await this.d.payments.get(paymentId);
    if (!p || p.status !== 'pending' || !hasSettleAttempt(p)) return 'pending';
    try {
      // Time first: once the window has closed, the authorization state read next is final.
      const closed = (await this.d.chain.chainTime()) >= validBeforeOf(p);
      const used = await this.d.resolver.usedEarlierAuthorization(p);
      if (used) {
        const r = await this.d.resolver.settleFromChain(p, used, waitMs);
        if (!r) return 'pending';
        if (r.ok) return r.payment.status === 'settled' ? 'settled' : 'processing';
        return r.reason === SettleReason.reverted || r.reason === SettleReason.expired ? 'failed' : 'pending';
      }
      if (closed) {
        const expired = await this.d.payments.transition(p.id, 'pending', 'expired');
        if (expired) this.d.log.info({ paymentId: p.id }, 'no settle attempt was used on-chain; payment expired');
        return expired ? 'expired' : 'pending';
      }
      return 'pending';
    } catch (err) {
      this.d.log.warn({ err, paymentId: p.id }, 'chain unavailable while checking a pending payment with a settle attempt');
      return 'pending';
    }
  }
}
