/**
 * Settlement of hosted-checkout payments on-chain (DESIGN.md 5).
 *
 * The customer signs an EIP-3009 TransferWithAuthorization that we issued (recipient, exact
 * amount, a nonce derived from the payment id, validBefore = session expiry); we verify it as
 * coinbase/x402's facilitator does, move the payment `pending -> processing` together with a
 * durable settle attempt (attempts.ts), relay it (the relayer pays the gas), wait for the
 * receipt and end in `settled` or `failed`. A receipt that does not arrive in time leaves the
 * payment `processing`: the same settle again (on any instance) joins the attempt, and the
 * reconciler decides it from the chain once nobody may still be working on it
 * (processing-resolver.ts, attempt-decision.ts).
 *
 * A payment moves money at most once: the nonce is per payment, so the token contract accepts
 * one authorization per (payer, payment), and every status change is a compare-and-set.
 *
 * A session paid into its deposit address comes as the sweep's authorization with
 * DEPOSIT_SWEEP_TERMS (the deposit-address method): it takes the deposit route (deposit-sweep.ts).
 */
import { getAddress, isAddressEqual, recoverTypedDataAddress, type Address, type Hex } from 'viem';
import type { ChainPort } from '../chain/chain-port.js';
import { relayOnce } from '../chain/relay.js';
import { broadcastFence } from '../chain/owned-relay.js';
import type { TransferAuthorization } from '../chain/authorization.js';
import type { AccountsService } from '../accounts/accounts.js';
import type { Payment, PaymentsService } from '../payments/payments.js';
import type { Store } from '../store/index.js';
import { fail } from '../lib/results.js';
import { isLive } from '../lib/livemode.js';
import type { Logger } from '../lib/logger.js';
import type { SettlementOptions } from './settlement-options.js';
import { AttemptLedger, soleOwner, type SettlementAttempt } from './attempts.js';
import { ProcessingResolver } from './processing-resolver.js';
import { PaymentQueue } from './payment-queue.js';
import { ISSUED_TERMS, type AuthorizationTerms } from './authorization-terms.js';
import { DepositSweeps, isDepositSweep } from './deposit-sweep.js';
import { SettlementReconciler } from './settlement-reconciler.js';
import { claimAttempt, recordTxHash, recordTxHashIn, sameAsRecorded, storedAuthorization } from './checkout-claim.js';
import {
  MESSAGES,
  SettleReason,
  attemptKey,
  compareAuthorization,
  comparePayerNonceAuthorization,
  mapVerifyFailure,
  relayFailureReason,
  statusFailure,
  validBeforeOf,
  type AuthorizationResult,
  type ReconcileSummary,
  type SettleRequest,
  type SettleResult,
  type UsedAuthorization,
} from './settle-reasons.js';

export * from './settle-reasons.js';

export type { SettlementOptions } from './settlement-options.js';
export { ISSUED_TERMS, type AuthorizationTerms } from './authorization-terms.js';

const PAYMENT_NONCE_KIND = 'payment';

export class SettlementService {
  private readonly livemode: boolean | undefined;
  private readonly store: Store;
  private readonly payments: PaymentsService;
  private readonly accounts: AccountsService;
  private readonly chain: ChainPort;
  private readonly log: Logger;
  /** How long a settle waits for its receipt before answering `processing`. */
  readonly confirmTimeoutMs: number;
  private readonly reconcileWaitMs: number;
  /** Settles, reconciles and deposit decisions of one payment run one at a time in this process (payment-queue.ts). */
  readonly queue: PaymentQueue;
  private reconciling: Promise<ReconcileSummary> | undefined;
  /** Attempts this process is relaying right now (send and receipt wait). */
  private readonly relaying = new Set<string>();
  /** Who runs each in-flight settle (durable: other instances join or judge it from here); the deposit watcher's sweeps too. */
  readonly attempts: AttemptLedger;
  private readonly resolver: ProcessingResolver;
  private readonly reconciler: SettlementReconciler;
  /** Settles a session paid into its deposit address (the deposit-address method; deposit-sweep.ts). */
  readonly sweeps: DepositSweeps;

  constructor(o: SettlementOptions) {
    this.store = o.store;
    this.payments = o.payments;
    this.accounts = o.accounts;
    this.chain = o.chain;
    this.log = o.logger;
    this.livemode = o.livemode;
    this.confirmTimeoutMs = o.confirmTimeoutMs ?? 60_000;
    this.reconcileWaitMs = o.reconcileWaitMs ?? 2_000;
    this.queue = o.queue ?? new PaymentQueue();
    const deadlineMs = this.confirmTimeoutMs + (o.chainDelayMs ?? 30_000);
    this.attempts = new AttemptLedger(o.store, o.owner ?? soleOwner(), deadlineMs, o.relayer, o.clock);
    this.resolver = new ProcessingResolver({
      store: o.store,
      payments: o.payments,
      chain: o.chain,
      log: o.logger,
      ledger: this.attempts,
      nonceFor: (id) => this.nonceFor(id),
      runningHere: (id) => this.relaying.has(id),
      resume: (p, attempt, waitMs) => this.resume(p, attempt, waitMs),
      deadlineMs,
    });
    this.sweeps = new DepositSweeps({
      store: o.store,
      payments: o.payments,
      chain: o.chain,
      log: o.logger,
      attempts: this.attempts,
      recipientFor: (p) => this.recipientFor(p),
      // A watcher's pass hands over every watched deposit in turn: a receipt wait is bounded so one
      // slow block does not hold up the others (an unconfirmed sweep is looked at again next pass).
      relayWaitMs: Math.min(this.confirmTimeoutMs, 15_000),
    });
    this.reconciler = new SettlementReconciler({
      payments: o.payments,
      chain: o.chain,
      resolver: this.resolver,
      log: o.logger,
      waitMs: this.reconcileWaitMs,
      busyHere: (id) => this.queue.busy(id),
      mine: (p) => this.mine(p),
      serialized: (id, fn) => this.queue.run(id, fn),
    });
  }

  /** A payment of the mode this instance's chain serves (every payment when it serves both). */
  mine(p: Payment): boolean {
    return this.livemode === undefined || isLive(p) === this.livemode;
  }

  /** The EIP-3009 nonce of a payment: the contract accepts it once per payer. */
  nonceFor(paymentId: string): Hex {
    return this.chain.nonceFor(PAYMENT_NONCE_KIND, paymentId);
  }

  /** Where the payment's money goes: its payout address, else the merchant's custodial wallet. */
  async recipientFor(p: Payment): Promise<Address | undefined> {
    if (p.payoutAddress) return getAddress(p.payoutAddress.toLowerCase());
    // The wallet index never changes: remembered per process (no account read per settle).
    const index = await this.accounts.walletIndexOf(p.accountId);
    if (index === undefined) return undefined;
    return this.chain.custodialAddress(index); // cached by the chain layer
  }

  /** The authorization we ask `from` to sign for this payment. */
  private async issue(p: Payment, from: Address): Promise<TransferAuthorization | undefined> {
    const to = await this.recipientFor(p);
    if (!to) return undefined;
    return {
      from,
      to,
      value: BigInt(p.stablecoinAmount),
      validAfter: 0n,
      validBefore: validBeforeOf(p),
      nonce: this.nonceFor(p.id),
    };
  }

  // -------------------------------------------------------------------------- authorization

  /** Typed data for the customer's wallet to sign; only while the payment is payable. */
  async authorizationFor(paymentId: string, from: Address): Promise<AuthorizationResult> {
    const p = await this.payments.get(paymentId);
    if (!p || !this.mine(p)) return fail(SettleReason.notFound, `No such payment: ${paymentId}`);
    const notPayable = statusFailure(p);
    if (notPayable) return notPayable;
    const auth = await this.issue(p, from);
    if (!auth) return fail(SettleReason.notFound, `No such payment: ${paymentId}`);
    return { ok: true, typedData: this.chain.transferWithAuthorizationTypedData(auth).json, payment: p };
  }

  // -------------------------------------------------------------------------- settle

  /**
   * Verifies and relays a signed authorization, then waits for the receipt: verify -> claim ->
   * relayOnce -> settled / processing / back to pending. `terms` is the paying method's rule for
   * checking it against the one we issue (authorization-terms.ts; x402 lets the payer choose the
   * nonce). Calls for the same payment queue behind each other (payment-queue.ts), so a double
   * submit waits for and reads the first outcome.
   */
  settle(paymentId: string, input: SettleRequest, terms: AuthorizationTerms = ISSUED_TERMS, read?: Payment): Promise<SettleResult> {
    if (isDepositSweep(terms)) return this.queue.run(paymentId, () => this.sweeps.settle(paymentId, input, terms));
    // `read`: the caller's read of this payment just now (the checkout door's, pay.ts). It stands
    // in for settle's own read when nothing of this payment is queued here, so no settle ahead of
    // this one can have changed it in this process; another instance's change since is caught by
    // the claim, which requires the row's `updatedAt` as read (checkout-claim.ts), and a refused
    // claim reads again. Queued behind another settle, this one reads the outcome (a double submit).
    const given = read?.id === paymentId && !this.queue.busy(paymentId) ? read : undefined;
    return this.queue.run(paymentId, () => this.settleOnce(paymentId, input, true, terms, given));
  }

  private async settleOnce(paymentId: string, input: SettleRequest, retryOnRace: boolean, terms: AuthorizationTerms, read?: Payment): Promise<SettleResult> {
    const { authorization: auth, signature } = input;
    const p = read ?? (await this.payments.get(paymentId));
    // The other mode's payment belongs to the other chain's instance (src/core/by-mode.ts).
    if (!p || !this.mine(p)) return fail(SettleReason.notFound, `No such payment: ${paymentId}`);
    // Paid into its deposit address: the deposit watcher alone resolves it.
    if (p.viaDeposit && (p.status === 'settled' || p.status === 'processing')) {
      return p.status === 'settled'
        ? fail(SettleReason.alreadySettled, 'This payment has already been paid.')
        : fail(SettleReason.processing, 'A payment for this checkout is already being processed.');
    }

    if (p.status === 'settled' || p.status === 'processing') {
      if (!(await this.isSameAuthorization(p, auth, signature))) {
        return p.status === 'settled'
          ? fail(SettleReason.alreadySettled, 'This payment has already been paid.')
          : fail(SettleReason.processing, 'A payment for this checkout is already being processed.');
      }
      if (p.status === 'settled') return { ok: true, payment: p, txHash: p.txHash as Hex };
      // Same authorization while it is being settled (here or on another instance): join that
      // attempt and answer its outcome, never a guess of our own.
      return this.resolver.join(p, this.confirmTimeoutMs, this.reconcileWaitMs);
    }
    const notPayable = statusFailure(p);
    if (notPayable) return notPayable;

    const expected = await this.issue(p, auth.from);
    if (!expected) return fail(SettleReason.notFound, `No such payment: ${paymentId}`);
    const mismatch = terms.compare(auth, expected);
    if (mismatch) return mismatch;
    const authNonce = terms.chosenNonce(auth);

    const verified = await this.chain.verifyTransferAuthorization(auth, signature);
    if (!verified.ok && verified.reason !== 'authorization_used') return mapVerifyFailure(verified);

    // An earlier payer's authorization for this payment may have been used after all (its
    // transaction reached the node although we reopened the payment): settle from that one
    // rather than charge a second wallet.
    let earlier: UsedAuthorization | undefined;
    try {
      earlier = await this.resolver.usedEarlierAuthorization(p, attemptKey(auth.from, authNonce));
    } catch (err) {
      this.log.warn({ err, paymentId }, 'chain unavailable while checking earlier settle attempts');
      return fail(SettleReason.chainUnavailable, MESSAGES.chain_unavailable!);
    }
    if (earlier) {
      const r = await this.resolver.settleFromChain(p, earlier, this.confirmTimeoutMs);
      if (r === undefined) {
        return retryOnRace ? this.settleOnce(paymentId, input, false, terms) : fail(SettleReason.processing, 'The payment changed state; try again.');
      }
      if (!r.ok) return r;
      return r.payment.status === 'settled'
        ? fail(SettleReason.alreadySettled, 'This payment has already been paid.')
        : fail(SettleReason.processing, 'A payment for this checkout is already being processed.');
    }

    const claimed = await claimAttempt({ store: this.store, payments: this.payments, ledger: this.attempts }, p, auth, signature, authNonce);
    if (!claimed) {
      // The sweeper expired it, or another instance took it (a second tab, a load balancer
      // sending the same settle twice): answer from the new state, joining that attempt.
      return retryOnRace ? this.settleOnce(paymentId, input, false, terms) : fail(SettleReason.processing, 'The payment changed state; try again.');
    }
    const { payment: started, attempt } = claimed;
    if (!verified.ok) {
      // Valid signature, but this payment's nonce is already used: an earlier attempt got
      // mined after we gave up on it. Settle from the chain instead of sending again.
      this.log.warn({ paymentId }, 'authorization already used on-chain; settling from the chain');
      return this.resolver.resolve(started, this.confirmTimeoutMs, { self: true });
    }
    // Verified just above: the chain layer sends on that verification's simulation.
    return this.relay(started, attempt, auth, signature, true, this.confirmTimeoutMs);
  }

  /**
   * Relays the attempt's authorization once and applies what the chain says: settled, still
   * on its way (`processing`), or provably nothing sent (back to `pending`, with the reason).
   */
  private async relay(p: Payment, attempt: SettlementAttempt, auth: TransferAuthorization, signature: Hex, verified: boolean, waitMs: number): Promise<SettleResult> {
    this.relaying.add(attempt.id);
    const relayed = await relayOnce(this.chain, auth, signature, {
      verified,
      timeoutMs: waitMs,
      since: p.createdAt,
      // Stored while processing, so anyone can follow it: in the relay journal's commit before
      // the broadcast, or (no journal, an earlier transaction answered) during the receipt wait.
      recordWithJournal: (txHash, tx) => recordTxHashIn(tx, p.id, attempt, txHash),
      // Sent only while the attempt is this generation's and inside its window on the store's
      // clock (owned-relay.ts; h12truth). It names the attempt in the journal: a replay asks it first.
      fence: broadcastFence(this.attempts, attempt),
      // Skipped when settled within relay.ts's grace: `settled` (with the attempt's close) writes the hash.
      onSent: (txHash) => recordTxHash(this.store, p.id, attempt, txHash),
    }).finally(() => this.relaying.delete(attempt.id));
    switch (relayed.status) {
      case 'settled':
        // `p` is the payment this attempt claimed: settle it by compare-and-set at once (no read
        // first); only if it changed meanwhile does `finish` read it and decide.
        return (await this.resolver.settleClaimed(p, relayed.txHash)) ?? this.resolver.finish(p, relayed.txHash);
      case 'pending': {
        // Fenced: nothing sent here, but the attempt may be another instance's: never "nothing was charged".
        if (relayed.fenced) return this.resolver.afterFence(p, attempt);
        if (relayed.txHash) {
          // Sent, not confirmed: the payment stays processing with its hash; the same settle
          // again (any instance) or the reconciler finishes it.
          this.log.info({ paymentId: p.id, txHash: relayed.txHash }, 'relay pending; payment left processing for the reconciler');
          return this.resolver.answerFor(p.id);
        }
        // It may have moved (or the payer canceled it): decide from the chain.
        if (relayed.mayHaveSent) return this.resolver.resolve(p, waitMs, { self: true });
        // Nothing was sent: the customer may try again while the session is open.
        return this.reopen(p, SettleReason.chainUnavailable, MESSAGES.chain_unavailable!);
      }
      case 'failed': {
        if (relayed.reason === 'reverted') {
          // The payer's balance was spent between the checks and inclusion (relayOnce re-read the
          // balance and the nonce after the revert: the authorization unused, the wallet short):
          // nothing moved and the same authorization can still pay once the wallet is funded, so
          // the payment is open again with the refusal a simulation gives (402, no payment.failed).
          if (relayed.spent) return this.reopen(p, SettleReason.insufficientBalance, MESSAGES.insufficient_balance!);
          return this.resolver.failWith(p, relayed.txHash, 'The transaction reverted on-chain.', SettleReason.reverted, 'The payment transaction was rejected by the chain. Nothing was charged.');
        }
        // Nothing reached the chain: the customer may try again while the session is open. The
        // attempt stays recorded (attemptedBy), so the payment cannot expire unchecked.
        const f = mapVerifyFailure(
          relayed.param ? fail(relayFailureReason(relayed), relayed.message, relayed.param) : fail(relayFailureReason(relayed), relayed.message),
        );
        return this.reopen(p, f.reason, f.message, f.param);
      }
    }
  }

  /** `processing -> pending` after a send that provably moved nothing; answers that, or the state that won. */
  private async reopen(p: Payment, reason: SettleReason, message: string, param?: string): Promise<SettleResult> {
    const moved = await this.resolver.apply(
      p,
      'processing',
      'pending',
      { payer: undefined, txHash: undefined, authNonce: undefined },
      { ok: false, reason, message, ...(param ? { param } : {}) },
    );
    if (!moved) return this.resolver.answerFor(p.id);
    return param ? fail(reason, message, param) : fail(reason, message);
  }

  /** An attempt taken over from an instance that is gone: its stored authorization sent again from here. */
  private resume(p: Payment, attempt: SettlementAttempt, waitMs: number): Promise<SettleResult> {
    const auth = storedAuthorization(attempt);
    return this.relay(p, attempt, auth, attempt.signature as Hex, false, waitMs);
  }

  /**
   * True when a re-submit carries the authorization this payment is (being) settled with:
   * same payer, the issued fields, and a signature by that payer. A payment that recorded a
   * payer-chosen nonce (`authNonce`) takes that nonce and the payer's window (whatever door the
   * re-submit comes through): the stored attempt, not the method, says which rule it was paid by.
   */
  private async isSameAuthorization(p: Payment, auth: TransferAuthorization, signature: Hex): Promise<boolean> {
    if (!p.payer || !isAddressEqual(p.payer as Address, auth.from)) return false;
    const expected = await this.issue(p, auth.from);
    if (!expected) return false;
    if (p.authNonce) {
      if (auth.nonce.toLowerCase() !== p.authNonce.toLowerCase() || comparePayerNonceAuthorization(auth, expected)) return false;
    } else if (compareAuthorization(auth, expected)) return false;
    // A byte-identical retry of the accepted settle: no second recovery (4-6 ms of CPU each).
    if (sameAsRecorded(await this.resolver.attemptOf(p), p.id, auth, signature)) return true;
    try {
      const { typedData } = this.chain.transferWithAuthorizationTypedData(auth);
      return isAddressEqual(await recoverTypedDataAddress({ ...typedData, signature }), auth.from);
    } catch {
      return false;
    }
  }

  // -------------------------------------------------------------------------- reconcile

  /**
   * Resolves every `processing` payment from its attempt and the chain (run at start and
   * periodically; settlement-reconciler.ts and the table in attempt-decision.ts).
   */
  reconcile(): Promise<ReconcileSummary> {
    this.reconciling ??= this.reconciler.pass().finally(() => {
      this.reconciling = undefined;
    });
    return this.reconciling;
  }

  // -------------------------------------------------------------------------- lifecycle

  // The reconciler runs as the scheduler's `reconcile:settlement` job (src/core/build.ts).

  /** Waits (up to `graceMs`) for settles and a reconcile pass in flight; the scheduler has stopped first. */
  async close(graceMs = 5_000): Promise<void> {
    const inFlight = [...this.queue.inFlight(), ...(this.reconciling ? [this.reconciling] : [])];
    if (inFlight.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(inFlight),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
