/**
 * Decides a `processing` payment from its attempt and the chain (issue 21), for the settle that
 * owns the attempt, a caller joining it from another instance, and the reconciler. Never sends
 * anything itself: `resume` hands the stored authorization back to the settle use case.
 *
 * Every outcome is applied with a compare-and-set together with the attempt's final answer, so
 * a caller waiting on the attempt reads the same answer the payment's webhook tells.
 */
import type { Address, Hex } from 'viem';
import type { ChainPort } from '../chain/chain-port.js';
import type { Payment, PaymentsService, TransitionPatch } from '../payments/payments.js';
import type { PaymentStatus } from '../payments/payment-schemas.js';
import type { Store } from '../store/index.js';
import { fail } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import { AttemptLedger, attemptId, type AttemptAnswer, type SettlementAttempt } from './attempts.js';
import { decideAttempt } from './attempt-decision.js';
import { restoreTxHash } from './checkout-claim.js';
import { MESSAGES, SettleReason, attemptKey, parseAttempt, validBeforeOf, withAttempt, type SettleResult, type UsedAuthorization } from './settle-reasons.js';

export interface ResolverDeps {
  store: Store;
  payments: PaymentsService;
  chain: ChainPort;
  log: Logger;
  ledger: AttemptLedger;
  nonceFor(paymentId: string): Hex;
  /** Whether this process is relaying this attempt now (its own attempts only). */
  runningHere(attemptId: string): boolean;
  /** Sends the attempt's stored authorization again from this instance (after a take-over). */
  resume(p: Payment, attempt: SettlementAttempt, waitMs: number): Promise<SettleResult>;
  /** Confirm timeout plus the chain's worst delay: how long an attempt without a ledger row is left alone. */
  deadlineMs: number;
}

const EXPIRED_MESSAGE = 'The payment session expired before the payment was confirmed.';
const REVERTED_MESSAGE = 'The payment transaction was rejected by the chain. Nothing was charged.';
const CANCELED_MESSAGE = 'This wallet canceled its authorization for this payment. Nothing was charged; pay from another wallet.';

export class ProcessingResolver {
  constructor(private readonly d: ResolverDeps) {}

  /** The nonce of the authorization a processing payment is settled with. */
  nonceOf(p: Payment): Hex {
    return (p.authNonce as Hex | undefined) ?? this.d.nonceFor(p.id);
  }

  /** The attempt carrying the payment's current authorization. */
  attemptOf(p: Payment): Promise<SettlementAttempt | undefined> {
    return p.payer ? this.d.ledger.get(attemptId('checkout', p.payer, this.nonceOf(p))) : Promise.resolve(undefined);
  }

  /**
   * A status change and the attempt's final answer in one transaction: whoever waits on the
   * attempt reads the answer that goes with the payment's new state.
   */
  async apply(p: Payment, from: PaymentStatus, to: PaymentStatus, patch: TransitionPatch, answer: AttemptAnswer): Promise<Payment | undefined> {
    const id = p.payer ? attemptId('checkout', p.payer, this.nonceOf(p)) : undefined;
    // Short and about this payment alone: shares its commit with concurrent settles' on PostgreSQL.
    return this.d.store.transaction(async (tx) => {
      const after = await this.d.payments.transitionIn(tx, p.id, from, to, patch);
      if (after && id) await this.d.ledger.close(id, answer, tx);
      return after;
    }, { shareCommit: true });
  }

  /**
   * The owner's broadcast fence closed (settlement.ts): nothing was sent from here, but the attempt
   * may be another instance's. The relay journal's commit may have written the unsent hash on the
   * payment (`recordTxHashIn` guards only the attempt by its generation): the payment gets the
   * attempt's hash back (a survivor's, or none); the payer hears its state (`processing`, 202).
   */
  async afterFence(p: Payment, attempt: SettlementAttempt): Promise<SettleResult> {
    this.d.log.warn({ paymentId: p.id, attempt: attempt.id }, 'settle not sent: the owner\'s broadcast window closed');
    await restoreTxHash(this.d.store, p.id, await this.d.ledger.get(attempt.id));
    return this.answerFor(p.id);
  }

  /**
   * What a payer is told about a payment in this state: money moved or on its way says so
   * whatever an attempt once answered; otherwise the attempt's final answer, if any.
   */
  async answerFor(paymentId: string, attempt?: SettlementAttempt): Promise<SettleResult> {
    const now = await this.d.payments.get(paymentId);
    if (!now) return fail(SettleReason.notFound, `No such payment: ${paymentId}`);
    switch (now.status) {
      case 'settled':
      case 'refunded':
        return { ok: true, payment: now, txHash: now.txHash as Hex };
      case 'processing':
        // Still on its way: "processing" (HTTP 202), poll the payment.
        return { ok: true, payment: now, ...(now.txHash ? { txHash: now.txHash as Hex } : {}) };
    }
    if (attempt?.state === 'done' && attempt.answer && !attempt.answer.ok) {
      const a = attempt.answer;
      const reason = (a.reason ?? SettleReason.processing) as SettleReason;
      return a.param ? fail(reason, a.message ?? '', a.param) : fail(reason, a.message ?? '');
    }
    if (now.status === 'failed') {
      return now.failureReason?.includes('expired') ? fail(SettleReason.expired, EXPIRED_MESSAGE) : fail(SettleReason.reverted, REVERTED_MESSAGE);
    }
    return fail(SettleReason.processing, 'The payment changed state; reload to see it.');
  }

  /**
   * The same authorization again while its payment is `processing` (a double click, or the
   * same signed settle sent to another instance): wait for the attempt's outcome, across
   * instances, and answer what its owner answered; decide from the chain only once nobody may
   * still be working on it.
   */
  async join(p: Payment, timeoutMs: number, waitMs: number): Promise<SettleResult> {
    const id = p.payer ? attemptId('checkout', p.payer, this.nonceOf(p)) : undefined;
    const until = Date.now() + timeoutMs;
    for (;;) {
      const a = id ? await this.d.ledger.get(id) : undefined;
      const now = await this.d.payments.get(p.id);
      if (!now || now.status !== 'processing') return this.answerFor(p.id, a);
      // Acts on what the chain shows (money moved: settle); judges "lost" only once nobody may
      // still be working on the attempt (resolve's decision table).
      const r = await this.resolve(now, Math.max(0, Math.min(waitMs, until - Date.now())));
      if (!r.ok || r.payment.status !== 'processing' || Date.now() >= until) return r;
      await new Promise((res) => setTimeout(res, Math.min(250, Math.max(10, until - Date.now()))));
    }
  }

  private busy(a: SettlementAttempt): Promise<boolean> {
    return this.d.ledger.busy(a, (x) => this.d.runningHere(x.id));
  }

  /**
   * Decides a `processing` payment (attempt-decision.ts). `self`: called by the attempt's own
   * runner right after its relay ended, which knows nothing else is sending it.
   */
  async resolve(p: Payment, waitMs: number, opts: { self?: boolean } = {}): Promise<SettleResult> {
    const { chain, log } = this.d;
    const payer = p.payer as Address | undefined;
    const nonce = this.nonceOf(p);
    try {
      // An attempt that ended earlier (the payment was later started from the chain) no longer guards anything.
      const found = await this.attemptOf(p);
      const attempt = found?.state === 'open' ? found : undefined;
      // Chain time before the state reads: if the window had closed by then, what they say is final.
      const windowClosed = (await chain.chainTime()) >= validBeforeOf(p);
      const authUsed = payer ? await chain.authorizationState(payer, nonce) : false;
      const ownTx = (attempt?.txHash ?? p.txHash) as Hex | undefined;
      const usedBy = authUsed && payer ? await chain.findAuthorizationTx(payer, nonce, { txHash: ownTx, since: p.createdAt }) : undefined;
      let txReceipt: 'success' | 'reverted' | 'timeout' | undefined;
      let txKnown: boolean | undefined;
      if (!authUsed && ownTx) {
        txReceipt = (await chain.waitForReceipt(ownTx, waitMs)).status;
        if (txReceipt === 'timeout') txKnown = await chain.transactionKnown(ownTx);
      }
      if (!authUsed) {
        // An earlier payer's authorization may have been used (see "Expiry after a settle attempt").
        const earlier = await this.usedEarlierAuthorization(p, payer ? attemptKey(payer, p.authNonce) : undefined);
        if (earlier) return this.settleWithEarlier(p, earlier, waitMs);
      }
      // On the store's time as last measured (every instance's, not this process's clock).
      const busy = opts.self ? false : attempt ? await this.busy(attempt) : Date.parse(p.updatedAt) + this.d.deadlineMs > this.d.ledger.now();
      const decision = decideAttempt({
        self: opts.self === true,
        busy,
        windowClosed,
        authUsed,
        ...(usedBy ? { usedBy } : {}),
        ...(txReceipt ? { txReceipt } : {}),
        ...(txKnown !== undefined ? { txKnown } : {}),
        canResume: attempt !== undefined,
      });
      switch (decision.do) {
        case 'settle': {
          const receipt = await chain.waitForReceipt(decision.txHash as Hex, waitMs);
          if (receipt.status === 'success') return this.finish(p, decision.txHash as Hex);
          log.warn({ paymentId: p.id, txHash: decision.txHash }, 'authorization used on-chain but its receipt is not readable yet');
          return { ok: true, payment: p, txHash: decision.txHash as Hex };
        }
        case 'canceled': {
          const moved = await this.apply(
            p,
            'processing',
            'pending',
            { payer: undefined, txHash: undefined, attemptedBy: withAttempt(p, payer!, p.authNonce), authNonce: undefined },
            { ok: false, reason: SettleReason.authorizationCanceled, message: CANCELED_MESSAGE },
          );
          return moved ? fail(SettleReason.authorizationCanceled, CANCELED_MESSAGE) : this.answerFor(p.id);
        }
        case 'reverted':
          // The wallet no longer holds the amount (the authorization is unused): its balance was
          // spent before inclusion. Open again for a retry once funded, as the relay path does.
          if (payer && attempt && (await chain.balanceOf(payer)) < BigInt(attempt.authorization.value ?? '0')) {
            const reopened = await this.apply(
              p,
              'processing',
              'pending',
              { payer: undefined, txHash: undefined, authNonce: undefined },
              { ok: false, reason: SettleReason.insufficientBalance, message: MESSAGES.insufficient_balance! },
            );
            return reopened ? fail(SettleReason.insufficientBalance, MESSAGES.insufficient_balance!) : this.answerFor(p.id);
          }
          return this.failWith(p, ownTx, 'The transaction reverted on-chain.', SettleReason.reverted, REVERTED_MESSAGE);
        case 'expired':
          return this.failWith(p, undefined, 'The authorization expired before its transaction was mined.', SettleReason.expired, EXPIRED_MESSAGE);
        case 'wait':
          return { ok: true, payment: p, ...(ownTx ? { txHash: ownTx } : {}) };
        case 'resume': {
          // Only past the deadline on the store's clock (read with the row): an owner whose lease
          // lapsed while it is still on its way to the broadcast keeps its whole window, whatever
          // this process's clock says (docs/settlement.md, "Checkout and x402 take-overs").
          const taken = await this.d.ledger.takeOver(attempt!, { pastDeadline: true });
          if (!taken) return this.answerFor(p.id);
          log.warn({ paymentId: p.id, from: attempt!.instanceId }, 'settle attempt of an instance that is gone: sending its authorization again');
          return this.d.resume(p, taken, waitMs);
        }
        case 'reopen': {
          // No ledger row (a payment from before it): its owner is gone and nothing is on its way.
          const reopened = await this.d.payments.transition(p.id, 'processing', 'pending', {
            payer: undefined,
            txHash: undefined,
            attemptedBy: payer ? withAttempt(p, payer, p.authNonce) : p.attemptedBy,
            authNonce: undefined,
          });
          // Our own compare-and-set failed: someone else decided it; answer what they decided.
          if (!reopened) return this.answerFor(p.id);
          log.warn({ paymentId: p.id }, 'settlement transaction was lost; payment is pending again');
          return fail(SettleReason.submitFailed, 'The payment was not sent. Nothing was charged; please try again.');
        }
      }
    } catch (err) {
      log.warn({ err, paymentId: p.id }, 'chain unavailable while resolving a processing payment');
      return fail(SettleReason.chainUnavailable, 'The chain could not be reached; try again shortly.');
    }
  }

  /** `processing -> failed` with the attempt's answer; a lost compare-and-set answers the state that won. */
  async failWith(p: Payment, txHash: Hex | undefined, failureReason: string, reason: SettleReason, message: string): Promise<SettleResult> {
    const failed = await this.apply(p, 'processing', 'failed', { ...(txHash ? { txHash } : {}), failureReason }, { ok: false, reason, message });
    if (!failed) return this.answerFor(p.id);
    this.d.log.warn({ paymentId: p.id, txHash, failureReason }, 'settlement failed');
    return fail(reason, message);
  }

  /**
   * Money moved with `txHash`: `processing -> settled`. When the payment is no longer
   * processing (someone reopened it while our transaction was landing), it still settles from
   * the chain: money that moved is never answered as anything else.
   */
  /** `processing -> settled` of the payment as this attempt claimed it; undefined when it is no longer that. */
  async settleClaimed(claimed: Payment, txHash: Hex): Promise<SettleResult | undefined> {
    if (claimed.status !== 'processing') return undefined;
    const settled = await this.apply(claimed, 'processing', 'settled', { txHash, settledAt: new Date().toISOString() }, { ok: true, txHash });
    if (!settled) return undefined;
    this.d.log.info({ paymentId: claimed.id, txHash }, 'payment settled');
    return { ok: true, payment: settled, txHash };
  }

  async finish(p: Pick<Payment, 'id'>, txHash: Hex): Promise<SettleResult> {
    const current = await this.d.payments.get(p.id);
    if (!current) return fail(SettleReason.notFound, `No such payment: ${p.id}`);
    if (current.status === 'processing') {
      const settled = await this.apply(current, 'processing', 'settled', { txHash, settledAt: new Date().toISOString() }, { ok: true, txHash });
      if (settled) {
        this.d.log.info({ paymentId: p.id, txHash }, 'payment settled');
        return { ok: true, payment: settled, txHash };
      }
      return this.finish(p, txHash);
    }
    if (current.status === 'pending') {
      // Reopened by an older instance's rules while our transaction landed: settle from the chain.
      const r = await this.d.store.transaction(async (tx) => {
        const started = await this.d.payments.transitionIn(tx, p.id, 'pending', 'processing', {});
        return started && this.d.payments.transitionIn(tx, p.id, 'processing', 'settled', { txHash, settledAt: new Date().toISOString() });
      });
      if (r) return { ok: true, payment: r, txHash };
    }
    return this.answerFor(p.id);
  }

  /** The first payer in `attemptedBy` (other than `except`) whose authorization was used by a transfer. Throws when the chain cannot be read. */
  async usedEarlierAuthorization(p: Payment, except?: string): Promise<UsedAuthorization | undefined> {
    for (const a of p.attemptedBy ?? []) {
      const attempt = parseAttempt(a);
      if (except && attemptKey(attempt.payer, attempt.nonce) === except) continue;
      const nonce = (attempt.nonce as Hex | undefined) ?? this.d.nonceFor(p.id);
      if (!(await this.d.chain.authorizationState(attempt.payer, nonce))) continue;
      const txHash = await this.d.chain.findAuthorizationTx(attempt.payer, nonce, { since: p.createdAt });
      if (txHash) return { payer: attempt.payer, txHash, nonce: attempt.nonce };
    }
    return undefined;
  }

  /** A processing payment whose earlier payer's authorization was used: settled with that one. */
  private async settleWithEarlier(p: Payment, earlier: UsedAuthorization, waitMs: number): Promise<SettleResult> {
    const receipt = await this.d.chain.waitForReceipt(earlier.txHash, waitMs);
    if (receipt.status !== 'success') return { ok: true, payment: p, txHash: earlier.txHash };
    const settled = await this.apply(
      p,
      'processing',
      'settled',
      { payer: earlier.payer, txHash: earlier.txHash, authNonce: earlier.nonce, settledAt: new Date().toISOString() },
      { ok: false, reason: SettleReason.alreadySettled, message: 'This payment has already been paid.' },
    );
    this.d.log.warn({ paymentId: p.id, payer: earlier.payer, txHash: earlier.txHash }, 'an earlier attempt was used on-chain; payment settled with it');
    return settled ? { ok: true, payment: settled, txHash: earlier.txHash } : this.answerFor(p.id);
  }

  /**
   * A pending payment whose authorization was used on-chain: `pending -> processing` with that
   * payer, then resolved from the chain. Undefined when the payment was no longer pending.
   */
  async settleFromChain(p: Payment, used: UsedAuthorization, waitMs: number): Promise<SettleResult | undefined> {
    const started = await this.d.payments.transition(p.id, 'pending', 'processing', {
      payer: used.payer,
      attemptedBy: withAttempt(p, used.payer, used.nonce),
      authNonce: used.nonce,
    });
    if (!started) return undefined;
    this.d.log.warn({ paymentId: p.id, payer: used.payer, txHash: used.txHash }, 'authorization used on-chain for a pending payment; settling from the chain');
    return this.resolve(started, waitMs, { self: true });
  }
}
