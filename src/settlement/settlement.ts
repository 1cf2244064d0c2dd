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
 */
import { getAddress, isAddressEqual, recoverTypedDataAddress, type Address, type Hex } from 'viem';
import type { ChainPort } from '../chain/port.js';
import { relayOnce } from '../chain/relay.js';
import type { TransferAuthorization } from '../chain/authorization.js';
import type { AccountsService } from '../accounts/accounts.js';
import { Payments, hasSettleAttempt, type Payment, type PaymentsService } from '../payments/payments.js';
import type { Store } from '../store/index.js';
import { fail } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import { DepositWatcher } from './deposits.js';
import { AttemptLedger, SettlementAttempts, soleOwner, type AttemptOwner, type SettlementAttempt } from './attempts.js';
import { ProcessingResolver } from './processing-resolver.js';
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
  withAttempt,
  type AuthorizationResult,
  type ReconcileSummary,
  type SettleOptions,
  type SettleRequest,
  type SettleResult,
  type UsedAuthorization,
} from './settle-reasons.js';

export * from './settle-reasons.js';

export interface SettlementOptions {
  store: Store;
  payments: PaymentsService;
  accounts: AccountsService;
  chain: ChainPort;
  logger: Logger;
  /** How long `settle` waits for the receipt before answering `processing`. Default 60 s. */
  confirmTimeoutMs?: number;
  /** Receipt wait per payment during a reconcile pass. Default 2 s. */
  reconcileWaitMs?: number;
  /** How long a session's deposit address is watched after the session ends. Default 24 h. */
  depositGraceMs?: number;
  /** This instance among those sharing the store (an InstanceLease); default: one process alone. */
  owner?: AttemptOwner;
  /** The relayer address this instance sends from (recorded on each attempt). */
  relayer?: string;
  /**
   * The chain's worst delay beyond the confirm timeout before an attempt may be judged by
   * another instance (its deadline is their sum). Default 30 s.
   */
  chainDelayMs?: number;
}

const PAYMENT_NONCE_KIND = 'payment';

export class SettlementService {
  private readonly store: Store;
  private readonly payments: PaymentsService;
  private readonly accounts: AccountsService;
  private readonly chain: ChainPort;
  private readonly log: Logger;
  private readonly confirmTimeoutMs: number;
  private readonly reconcileWaitMs: number;
  /** Per-payment queue: settles and reconciles of one payment run one at a time in this process. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private reconciling: Promise<ReconcileSummary> | undefined;
  /** Attempts this process is relaying right now (send and receipt wait). */
  private readonly relaying = new Set<string>();
  /** Who runs each in-flight settle (durable: other instances join or judge it from here). */
  private readonly ledger: AttemptLedger;
  private readonly resolver: ProcessingResolver;
  /** Deposit addresses: paying a session with a plain token transfer from any wallet (deposits.ts). */
  readonly deposits: DepositWatcher;

  constructor(o: SettlementOptions) {
    this.store = o.store;
    this.payments = o.payments;
    this.accounts = o.accounts;
    this.chain = o.chain;
    this.log = o.logger;
    this.confirmTimeoutMs = o.confirmTimeoutMs ?? 60_000;
    this.reconcileWaitMs = o.reconcileWaitMs ?? 2_000;
    const deadlineMs = this.confirmTimeoutMs + (o.chainDelayMs ?? 30_000);
    this.ledger = new AttemptLedger(o.store, o.owner ?? soleOwner(), deadlineMs, o.relayer);
    this.resolver = new ProcessingResolver({
      store: o.store,
      payments: o.payments,
      chain: o.chain,
      log: o.logger,
      ledger: this.ledger,
      nonceFor: (id) => this.nonceFor(id),
      runningHere: (id) => this.relaying.has(id),
      resume: (p, attempt, waitMs) => this.resume(p, attempt, waitMs),
      deadlineMs,
    });
    this.deposits = new DepositWatcher({
      store: o.store,
      payments: o.payments,
      chain: o.chain,
      logger: o.logger.child({ part: 'deposits' }),
      recipientFor: (p) => this.recipientFor(p),
      exclusive: (id, fn) => this.serialized(id, fn),
      graceMs: o.depositGraceMs ?? 24 * 3_600_000,
      // One pass decides every watched deposit in turn: a receipt wait is bounded so one slow
      // block does not hold up the others (an unconfirmed sweep is looked at again next pass).
      relayWaitMs: Math.min(this.confirmTimeoutMs, 15_000),
    });
  }

  /** The EIP-3009 nonce of a payment: the contract accepts it once per payer. */
  nonceFor(paymentId: string): Hex {
    return this.chain.nonceFor(PAYMENT_NONCE_KIND, paymentId);
  }

  /** Where the payment's money goes: its payout address, else the merchant's custodial wallet. */
  async recipientFor(p: Payment): Promise<Address | undefined> {
    if (p.payoutAddress) return getAddress(p.payoutAddress.toLowerCase());
    const account = await this.accounts.get(p.accountId);
    if (!account) return undefined;
    return this.chain.custodialAddress(account.walletIndex); // cached by the chain layer
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
    if (!p) return fail(SettleReason.notFound, `No such payment: ${paymentId}`);
    const notPayable = statusFailure(p);
    if (notPayable) return notPayable;
    const auth = await this.issue(p, from);
    if (!auth) return fail(SettleReason.notFound, `No such payment: ${paymentId}`);
    return { ok: true, typedData: this.chain.transferWithAuthorizationTypedData(auth).json, payment: p };
  }

  // -------------------------------------------------------------------------- settle

  /**
   * Verifies and relays a signed authorization, then waits for the receipt. Calls for the same
   * payment queue behind each other, so a double submit waits for and reads the first outcome.
   */
  settle(paymentId: string, input: SettleRequest, opts: SettleOptions = {}): Promise<SettleResult> {
    return this.serialized(paymentId, () => this.settleOnce(paymentId, input, true, opts.payerNonce === true));
  }

  private async settleOnce(paymentId: string, input: SettleRequest, retryOnRace: boolean, payerNonce = false): Promise<SettleResult> {
    const { authorization: auth, signature } = input;
    const p = await this.payments.get(paymentId);
    if (!p) return fail(SettleReason.notFound, `No such payment: ${paymentId}`);
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
    const mismatch = payerNonce ? comparePayerNonceAuthorization(auth, expected) : compareAuthorization(auth, expected);
    if (mismatch) return mismatch;
    const authNonce = payerNonce ? auth.nonce : undefined;

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
        return retryOnRace ? this.settleOnce(paymentId, input, false, payerNonce) : fail(SettleReason.processing, 'The payment changed state; try again.');
      }
      if (!r.ok) return r;
      return r.payment.status === 'settled'
        ? fail(SettleReason.alreadySettled, 'This payment has already been paid.')
        : fail(SettleReason.processing, 'A payment for this checkout is already being processed.');
    }

    const claimed = await this.claim(p, auth, signature, authNonce);
    if (!claimed) {
      // The sweeper expired it, or another instance took it (a second tab, a load balancer
      // sending the same settle twice): answer from the new state, joining that attempt.
      return retryOnRace ? this.settleOnce(paymentId, input, false, payerNonce) : fail(SettleReason.processing, 'The payment changed state; try again.');
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

  /** `pending -> processing` and the attempt that carries it, in one transaction. */
  private async claim(
    p: Payment,
    auth: TransferAuthorization,
    signature: Hex,
    authNonce: string | undefined,
  ): Promise<{ payment: Payment; attempt: SettlementAttempt } | undefined> {
    return this.store
      .transaction(async (tx) => {
        const payment = await this.payments.transitionIn(tx, p.id, 'pending', 'processing', {
          payer: auth.from,
          attemptedBy: withAttempt(p, auth.from, authNonce),
          authNonce,
          txHash: undefined,
        });
        if (!payment) return undefined;
        const attempt = await this.ledger.open(tx, {
          kind: 'checkout',
          subject: p.id,
          payer: auth.from,
          nonce: auth.nonce,
          validBefore: auth.validBefore,
          authorization: Object.fromEntries(Object.entries(auth).map(([k, v]) => [k, String(v)])),
          signature,
        });
        // An attempt of this very authorization is still open (from before the ledger's rules):
        // roll the claim back; the caller reads the state again.
        if (!attempt) throw new ClaimRefused();
        return { payment, attempt };
      })
      .catch((e: unknown) => {
        if (e instanceof ClaimRefused) return undefined;
        throw e;
      });
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
      // Stored while processing (during the receipt wait), so anyone can follow it.
      onSent: (txHash) => this.recordTxHash(p.id, attempt, txHash),
    }).finally(() => this.relaying.delete(attempt.id));
    switch (relayed.status) {
      case 'settled':
        return this.resolver.finish(p, relayed.txHash);
      case 'pending': {
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
    const a = attempt.authorization;
    const auth: TransferAuthorization = {
      from: getAddress(a.from!),
      to: getAddress(a.to!),
      value: BigInt(a.value!),
      validAfter: BigInt(a.validAfter!),
      validBefore: BigInt(a.validBefore!),
      nonce: a.nonce as Hex,
    };
    return this.relay(p, attempt, auth, attempt.signature as Hex, false, waitMs);
  }

  /**
   * True when a re-submit carries the authorization this payment is (being) settled with:
   * same payer, the issued fields, and a signature by that payer.
   */
  private async isSameAuthorization(p: Payment, auth: TransferAuthorization, signature: Hex): Promise<boolean> {
    if (!p.payer || !isAddressEqual(p.payer as Address, auth.from)) return false;
    const expected = await this.issue(p, auth.from);
    if (!expected) return false;
    if (p.authNonce) {
      if (auth.nonce.toLowerCase() !== p.authNonce.toLowerCase() || comparePayerNonceAuthorization(auth, expected)) return false;
    } else if (compareAuthorization(auth, expected)) return false;
    try {
      const { typedData } = this.chain.transferWithAuthorizationTypedData(auth);
      return isAddressEqual(await recoverTypedDataAddress({ ...typedData, signature }), auth.from);
    } catch {
      return false;
    }
  }

  private async recordTxHash(paymentId: string, attempt: SettlementAttempt, txHash: Hex): Promise<void> {
    // Stored while still processing, so the reconciler (of any instance) can follow a
    // transaction that is pending in the mempool. Not a status change: no listeners.
    const now = new Date().toISOString();
    await this.store.transaction(async (tx) => {
      await tx.table(Payments).update(paymentId, { txHash, updatedAt: now }, { status: 'processing' });
      await tx.table(SettlementAttempts).update(attempt.id, { txHash, updatedAt: now }, { generation: attempt.generation });
    });
  }

  // -------------------------------------------------------------------------- reconcile

  /**
   * Resolves every `processing` payment from its attempt and the chain (run at start and
   * periodically; the table in attempt-decision.ts): money moved -> `settled`; our transaction
   * reverted -> `failed`; the window closed unused -> `failed`; someone may still be working on
   * it -> left `processing`; its owner gone past the deadline with nothing on its way -> the
   * stored authorization is sent again from here.
   */
  reconcile(): Promise<ReconcileSummary> {
    this.reconciling ??= this.reconcilePass().finally(() => {
      this.reconciling = undefined;
    });
    return this.reconciling;
  }

  private async reconcilePass(): Promise<ReconcileSummary> {
    const summary: ReconcileSummary = { checked: 0, settled: 0, failed: 0, pending: 0, processing: 0, expired: 0 };
    // Checked once per pass: a processing payment put back to pending is not checked again.
    const seen = new Set<string>();
    const run = (p: Payment, resolve: (id: string) => Promise<keyof Omit<ReconcileSummary, 'checked'>>) =>
      this.serialized(p.id, async () => {
        summary.checked++;
        summary[await resolve(p.id)]++;
      }).catch((err) => this.log.error({ err, paymentId: p.id }, 'reconcile failed for a payment'));
    // Only the rows this pass is about, a page at a time through an index (payments.ts). A
    // settle running here is skipped for this pass only; whether an attempt is over is decided
    // from the ledger and the chain, never from this process's queue.
    for await (const page of this.payments.processing()) {
      // A payment paid into its deposit address is the deposit watcher's to resolve.
      const todo = page.filter((p) => !this.queues.has(p.id) && !p.viaDeposit);
      for (const p of todo) seen.add(p.id);
      await Promise.all(todo.map((p) => run(p, (id) => this.resolveProcessingById(id, this.reconcileWaitMs))));
    }
    for await (const page of this.payments.pendingWithAttempts()) {
      const todo = page.filter((p) => !this.queues.has(p.id) && !seen.has(p.id));
      await Promise.all(todo.map((p) => run(p, (id) => this.resolvePendingAttempt(id, this.reconcileWaitMs))));
    }
    if (summary.checked > 0) this.log.info(summary, 'settlement reconcile pass');
    return summary;
  }

  private async resolveProcessingById(paymentId: string, waitMs: number): Promise<'settled' | 'failed' | 'pending' | 'processing'> {
    const p = await this.payments.get(paymentId);
    if (!p || p.status !== 'processing') return 'processing';
    const r = await this.resolver.resolve(p, waitMs);
    if (r.ok) return r.payment.status === 'settled' ? 'settled' : 'processing';
    if (r.reason === SettleReason.reverted || r.reason === SettleReason.expired) return 'failed';
    if (r.reason === SettleReason.submitFailed || r.reason === SettleReason.authorizationCanceled) return 'pending';
    return 'processing';
  }

  /**
   * A `pending` payment that had a settle attempt: if one of its payers' authorizations was used
   * on-chain, settle from the chain (even past the session expiry: the money moved). Once chain
   * time has passed `validBefore` and none was used, none can be any more: store `expired`
   * (the sweeper leaves these payments to us).
   */
  private async resolvePendingAttempt(paymentId: string, waitMs: number): Promise<keyof Omit<ReconcileSummary, 'checked'>> {
    const p = await this.payments.get(paymentId);
    if (!p || p.status !== 'pending' || !hasSettleAttempt(p)) return 'pending';
    try {
      // Time first: once the window has closed, the authorization state read next is final.
      const closed = (await this.chain.chainTime()) >= validBeforeOf(p);
      const used = await this.resolver.usedEarlierAuthorization(p);
      if (used) {
        const r = await this.resolver.settleFromChain(p, used, waitMs);
        if (!r) return 'pending';
        if (r.ok) return r.payment.status === 'settled' ? 'settled' : 'processing';
        return r.reason === SettleReason.reverted || r.reason === SettleReason.expired ? 'failed' : 'pending';
      }
      if (closed) {
        const expired = await this.payments.transition(p.id, 'pending', 'expired');
        if (expired) this.log.info({ paymentId: p.id }, 'no settle attempt was used on-chain; payment expired');
        return expired ? 'expired' : 'pending';
      }
      return 'pending';
    } catch (err) {
      this.log.warn({ err, paymentId: p.id }, 'chain unavailable while checking a pending payment with a settle attempt');
      return 'pending';
    }
  }

  // -------------------------------------------------------------------------- lifecycle

  // The reconciler runs as the scheduler's `reconcile:settlement` job (src/core/build.ts).

  /** Waits (up to `graceMs`) for settles and a reconcile pass in flight; the scheduler has stopped first. */
  async close(graceMs = 5_000): Promise<void> {
    const inFlight = [...this.queues.values(), ...(this.reconciling ? [this.reconciling] : [])];
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

  private serialized<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return next;
  }
}

/** Thrown inside the claim's transaction to roll it back. */
class ClaimRefused extends Error {}
