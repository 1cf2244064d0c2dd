/**
 * Settlement of hosted-checkout payments on-chain (DESIGN.md 5).
 *
 * The customer signs an EIP-3009 TransferWithAuthorization that we issued (recipient, exact
 * amount, a nonce derived from the payment id, validBefore = session expiry); we verify it as
 * coinbase/x402's facilitator does, move the payment `pending -> processing`, relay it (the
 * relayer pays the gas), wait for the receipt and end in `settled` or `failed`. A receipt that
 * does not arrive in time leaves the payment `processing` for the reconciler.
 *
 * A payment moves money at most once: the nonce is per payment, so the token contract accepts
 * one authorization per (payer, payment), and every status change is a compare-and-set.
 */
import { getAddress, isAddressEqual, recoverTypedDataAddress, type Address, type Hex } from 'viem';
import { z } from 'zod';
import type { VerifyReason } from '../chain/chain.js';
import type { ChainPort } from '../chain/port.js';
import { relayOnce, type RelayOutcome } from '../chain/relay.js';
import {
  EvmAddress,
  SignatureHex,
  TransferAuthorization,
  type TransferTypedDataJson,
} from '../chain/authorization.js';
import type { AccountsService } from '../accounts/accounts.js';
import { Payments, hasSettleAttempt, type Payment, type PaymentsService } from '../payments/payments.js';
import type { Store } from '../store/index.js';
import { fail, type Fail, type Result } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import { DepositWatcher } from './deposits.js';

// ---------------------------------------------------------------------------- inputs

export const AuthorizationRequest = z.object({ from: EvmAddress });
export type AuthorizationRequest = z.infer<typeof AuthorizationRequest>;

export const SettleRequest = z.object({
  /** The signed message, uint256 fields as decimal strings (what eth_signTypedData_v4 signed). */
  authorization: TransferAuthorization,
  signature: SignatureHex,
});
export type SettleRequest = z.infer<typeof SettleRequest>;

// ---------------------------------------------------------------------------- results

export const SettleReason = {
  notFound: 'not_found',
  /** The signature does not recover to `authorization.from`. */
  invalidSignature: 'invalid_signature',
  /** `to` is not the payment's payout address / the merchant's wallet. */
  wrongRecipient: 'wrong_recipient',
  /** `value` is not exactly the locked stablecoin amount. */
  wrongAmount: 'wrong_amount',
  /** `nonce` is not the one issued for this payment. */
  wrongNonce: 'wrong_nonce',
  /** `validBefore` is not the session expiry we issued. */
  wrongValidity: 'wrong_validity',
  notYetValid: 'not_yet_valid',
  insufficientBalance: 'insufficient_balance',
  /** The session (and so the authorization) has expired. */
  expired: 'expired',
  /** Settled already, by a different authorization than the one given. */
  alreadySettled: 'already_settled',
  /** The payment failed earlier (terminal). */
  paymentFailed: 'payment_failed',
  /** The merchant canceled the session (terminal): no authorization can settle it any more. */
  canceled: 'canceled',
  /** Another authorization is being settled for this payment right now. */
  processing: 'processing',
  /** The payer canceled this payment's authorization on-chain (EIP-3009); another wallet can pay. */
  authorizationCanceled: 'authorization_canceled',
  /** The chain rejected the call in simulation for a reason not listed above. */
  simulationFailed: 'simulation_failed',
  /** The transaction was mined and reverted; the payment is now `failed`. */
  reverted: 'reverted',
  /** The chain could not be reached; nothing was sent, retry later. */
  chainUnavailable: 'chain_unavailable',
  /** The node did not take the transaction; nothing was sent, retry later. */
  submitFailed: 'submit_failed',
} as const;
export type SettleReason = (typeof SettleReason)[keyof typeof SettleReason];

export type AuthorizationFailure = Fail<
  | typeof SettleReason.notFound
  | typeof SettleReason.expired
  | typeof SettleReason.alreadySettled
  | typeof SettleReason.paymentFailed
  | typeof SettleReason.processing
  | typeof SettleReason.canceled
>;
export type AuthorizationResult =
  | {
      ok: true;
      /** For `eth_signTypedData_v4` (send `JSON.stringify(typedData)`). */
      typedData: TransferTypedDataJson;
      payment: Payment;
    }
  | AuthorizationFailure;

/**
 * `payment.status` is `settled`, or `processing` when the receipt did not arrive within the
 * confirm timeout (the reconciler or a resubmit of the same authorization finishes it).
 */
export type SettleResult = Result<{ payment: Payment; txHash?: Hex }, SettleReason>;

export interface SettleOptions {
  /**
   * The payer chose the nonce (x402 clients sign a random one) and the window (closing no later
   * than the session expiry). The payment still settles once: only one authorization is in
   * flight at a time, and every attempted (payer, nonce) is kept and checked on-chain.
   */
  payerNonce?: boolean;
}

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
      // Same authorization again while unconfirmed: look at the chain once more.
      return this.resolveProcessing(p, this.confirmTimeoutMs);
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
      earlier = await this.usedEarlierAuthorization(p, attemptKey(auth.from, authNonce));
    } catch (err) {
      this.log.warn({ err, paymentId }, 'chain unavailable while checking earlier settle attempts');
      return fail(SettleReason.chainUnavailable, MESSAGES.chain_unavailable!);
    }
    if (earlier) {
      const r = await this.settleFromChain(p, earlier, this.confirmTimeoutMs);
      if (r === undefined) {
        return retryOnRace ? this.settleOnce(paymentId, input, false, payerNonce) : fail(SettleReason.processing, 'The payment changed state; try again.');
      }
      if (!r.ok) return r;
      return r.payment.status === 'settled'
        ? fail(SettleReason.alreadySettled, 'This payment has already been paid.')
        : fail(SettleReason.processing, 'A payment for this checkout is already being processed.');
    }

    const started = await this.payments.transition(p.id, 'pending', 'processing', {
      payer: auth.from,
      attemptedBy: withAttempt(p, auth.from, authNonce),
      authNonce,
    });
    if (!started) {
      // The sweeper expired it, or another process took it: answer from the new state.
      return retryOnRace ? this.settleOnce(paymentId, input, false, payerNonce) : fail(SettleReason.processing, 'The payment changed state; try again.');
    }
    if (!verified.ok) {
      // Valid signature, but this payment's nonce is already used: an earlier attempt got
      // mined after we gave up on it. Settle from the chain instead of sending again.
      this.log.warn({ paymentId }, 'authorization already used on-chain; settling from the chain');
      return this.resolveProcessing(started, this.confirmTimeoutMs);
    }

    // Verified just above: the chain layer sends on that verification's simulation. One relay,
    // one outcome; the chain layer has already read what the chain said (src/chain/relay.ts).
    const relayed = await relayOnce(this.chain, auth, signature, {
      verified: true,
      timeoutMs: this.confirmTimeoutMs,
      since: p.createdAt,
      // Stored while processing (during the receipt wait, before the outcome is applied), so
      // the reconciler can follow it.
      onSent: (txHash) => this.recordTxHash(p.id, txHash),
    });
    switch (relayed.status) {
      case 'settled':
        return this.finish(p.id, relayed.txHash, 'success');
      case 'pending': {
        if (relayed.txHash) {
          // Sent, not confirmed (no receipt in time, or an answer lost after sending): the
          // payment stays processing with its hash; a resubmit or the reconciler finishes it.
          this.log.info({ paymentId, txHash: relayed.txHash }, 'relay pending; payment left processing for the reconciler');
          const now = await this.payments.get(p.id);
          return now ? { ok: true, payment: now, txHash: relayed.txHash } : fail(SettleReason.notFound, `No such payment: ${paymentId}`);
        }
        // It may have moved (or the payer canceled it): decide from the chain, as the reconciler does.
        if (relayed.mayHaveSent) return this.resolveProcessing(started, this.confirmTimeoutMs);
        // Nothing left: the customer may try again while the session is open.
        await this.payments.transition(p.id, 'processing', 'pending', { payer: undefined, authNonce: undefined });
        return fail(SettleReason.chainUnavailable, MESSAGES.chain_unavailable!);
      }
      case 'failed':
        if (relayed.reason === 'reverted') {
          await this.payments.transition(p.id, 'processing', 'failed', {
            txHash: relayed.txHash,
            failureReason: 'The transaction reverted on-chain.',
          });
          this.log.warn({ paymentId, txHash: relayed.txHash }, 'settlement transaction reverted; payment failed');
          return fail(SettleReason.reverted, 'The payment transaction was rejected by the chain. Nothing was charged.');
        }
        // Nothing reached the chain: the customer may try again while the session is open. The
        // attempt stays recorded (attemptedBy), so the payment cannot expire unchecked.
        await this.payments.transition(p.id, 'processing', 'pending', { payer: undefined, txHash: undefined, authNonce: undefined });
        return mapVerifyFailure(
          relayed.param
            ? fail(relayFailureReason(relayed), relayed.message, relayed.param)
            : fail(relayFailureReason(relayed), relayed.message),
        );
    }
  }

  /** Applies a receipt outcome to a `processing` payment. */
  private async finish(paymentId: string, txHash: Hex, status: 'success' | 'reverted' | 'timeout'): Promise<SettleResult> {
    if (status === 'success') {
      const settled = await this.payments.transition(paymentId, 'processing', 'settled', { txHash, settledAt: new Date().toISOString() });
      const now = settled ?? (await this.payments.get(paymentId));
      if (now?.status === 'settled') {
        this.log.info({ paymentId, txHash }, 'payment settled');
        return { ok: true, payment: now, txHash: (now.txHash as Hex | undefined) ?? txHash };
      }
      return fail(SettleReason.processing, 'The payment changed state; reload to see it.');
    }
    if (status === 'reverted') {
      // Our transaction can revert because another one used the authorization first (a
      // duplicate send): then the money did move, and the payment settles with that one.
      const usedBy = await this.usedByOtherTx(paymentId, txHash).catch(() => undefined);
      if (usedBy) return this.finish(paymentId, usedBy, 'success');
      await this.payments.transition(paymentId, 'processing', 'failed', {
        txHash,
        failureReason: 'The transaction reverted on-chain.',
      });
      this.log.warn({ paymentId, txHash }, 'settlement transaction reverted; payment failed');
      return fail(SettleReason.reverted, 'The payment transaction was rejected by the chain. Nothing was charged.');
    }
    const p = await this.payments.get(paymentId);
    this.log.info({ paymentId, txHash }, 'receipt not confirmed in time; left processing for the reconciler');
    return p ? { ok: true, payment: p, txHash } : fail(SettleReason.notFound, `No such payment: ${paymentId}`);
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

  /** The transaction (not `txHash`) that used this payment's authorization by its payer, if any. */
  private async usedByOtherTx(paymentId: string, txHash: Hex): Promise<Hex | undefined> {
    const p = await this.payments.get(paymentId);
    const payer = p?.payer as Address | undefined;
    if (!p || !payer) return undefined;
    const nonce = this.nonceOf(p);
    if (!(await this.chain.authorizationState(payer, nonce))) return undefined;
    const found = await this.chain.findAuthorizationTx(payer, nonce, { since: p.createdAt });
    return found && found.toLowerCase() !== txHash.toLowerCase() ? found : undefined;
  }

  /**
   * The first payer in `attemptedBy` (other than `except`) whose authorization for this payment
   * was used on-chain by a transfer. Canceled authorizations (used, no transfer) are skipped.
   * Throws when the chain cannot be read.
   */
  private async usedEarlierAuthorization(p: Payment, except?: string): Promise<UsedAuthorization | undefined> {
    for (const a of p.attemptedBy ?? []) {
      const attempt = parseAttempt(a);
      if (except && attemptKey(attempt.payer, attempt.nonce) === except) continue;
      const nonce = (attempt.nonce as Hex | undefined) ?? this.nonceFor(p.id);
      if (!(await this.chain.authorizationState(attempt.payer, nonce))) continue;
      const txHash = await this.chain.findAuthorizationTx(attempt.payer, nonce, { since: p.createdAt });
      if (txHash) return { payer: attempt.payer, txHash, nonce: attempt.nonce };
    }
    return undefined;
  }

  /** The nonce of the authorization a processing payment is settled with. */
  private nonceOf(p: Payment): Hex {
    return (p.authNonce as Hex | undefined) ?? this.nonceFor(p.id);
  }

  /**
   * A pending payment whose authorization was used on-chain: `pending -> processing` with that
   * payer, then resolved from the chain like the reconciler does. Undefined when the payment
   * was no longer pending.
   */
  private async settleFromChain(p: Payment, used: UsedAuthorization, waitMs: number): Promise<SettleResult | undefined> {
    const started = await this.payments.transition(p.id, 'pending', 'processing', {
      payer: used.payer,
      attemptedBy: withAttempt(p, used.payer, used.nonce),
      authNonce: used.nonce,
    });
    if (!started) return undefined;
    this.log.warn({ paymentId: p.id, payer: used.payer, txHash: used.txHash }, 'authorization used on-chain for a pending payment; settling from the chain');
    return this.resolveProcessing(started, waitMs);
  }

  private async recordTxHash(paymentId: string, txHash: Hex): Promise<void> {
    // Stored while still processing, so the reconciler can follow a transaction that is
    // pending in the mempool after a restart. Not a status change: no listeners.
    await this.store.transaction(async (tx) => {
      await tx.table(Payments).update(paymentId, { txHash, updatedAt: new Date().toISOString() }, { status: 'processing' });
    });
  }

  // -------------------------------------------------------------------------- reconcile

  /**
   * Resolves every `processing` payment from the chain (run at start and periodically):
   * - authorization used on-chain -> `settled` with the transaction that used it;
   * - our transaction mined and reverted -> `failed`;
   * - our transaction still pending in the node -> left `processing`;
   * - nothing on-chain and the authorization expired -> `failed` (it can never be used now);
   * - nothing on-chain and the session still open -> back to `pending` (the customer can pay
   *   again; the per-payment nonce still lets at most one authorization through).
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
    // Only the rows this pass is about, a page at a time through an index (payments.ts), never
    // every pending payment. A payment with a settle running in this process is that call's to finish.
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
    const r = await this.resolveProcessing(p, waitMs);
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
      const used = await this.usedEarlierAuthorization(p);
      if (used) {
        const r = await this.settleFromChain(p, used, waitMs);
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

  /** Decides a `processing` payment from the chain (see `reconcile`). Never sends anything. */
  private async resolveProcessing(p: Payment, waitMs: number): Promise<SettleResult> {
    const payer = p.payer as Address | undefined;
    const nonce = this.nonceOf(p);
    try {
      // Chain time before the state reads: if the window had closed by then, what they say is
      // final (a block mined in between cannot use the authorization any more).
      const closed = (await this.chain.chainTime()) >= validBeforeOf(p);
      if (payer && (await this.chain.authorizationState(payer, nonce))) {
        const txHash = await this.chain.findAuthorizationTx(payer, nonce, {
          txHash: p.txHash as Hex | undefined,
          since: p.createdAt,
        });
        if (!txHash) {
          // Used without a transfer: the payer canceled it (EIP-3009 cancelAuthorization).
          // Nothing moved; this wallet can no longer pay this payment, another one can.
          await this.payments.transition(p.id, 'processing', 'pending', {
            payer: undefined,
            txHash: undefined,
            attemptedBy: withAttempt(p, payer, p.authNonce),
            authNonce: undefined,
          });
          return fail(
            SettleReason.authorizationCanceled,
            'This wallet canceled its authorization for this payment. Nothing was charged; pay from another wallet.',
          );
        }
        const receipt = await this.chain.waitForReceipt(txHash, waitMs);
        if (receipt.status === 'success') return this.finish(p.id, txHash, 'success');
        this.log.warn({ paymentId: p.id, txHash }, 'authorization used on-chain but its receipt is not readable yet');
        return { ok: true, payment: p, txHash };
      }
      if (p.txHash) {
        const txHash = p.txHash as Hex;
        const receipt = await this.chain.waitForReceipt(txHash, waitMs);
        if (receipt.status !== 'timeout') return this.finish(p.id, txHash, receipt.status);
        if (await this.chain.transactionKnown(txHash)) return { ok: true, payment: p, txHash };
      }
      // Nothing on-chain and nothing on its way from this payer; an earlier payer's
      // authorization may still have been used (see "Expiry after a settle attempt").
      const earlier = await this.usedEarlierAuthorization(p, payer ? attemptKey(payer, p.authNonce) : undefined);
      if (earlier) {
        const receipt = await this.chain.waitForReceipt(earlier.txHash, waitMs);
        if (receipt.status !== 'success') return { ok: true, payment: p, txHash: earlier.txHash };
        const settled = await this.payments.transition(p.id, 'processing', 'settled', {
          payer: earlier.payer,
          txHash: earlier.txHash,
          authNonce: earlier.nonce,
          settledAt: new Date().toISOString(),
        });
        this.log.warn({ paymentId: p.id, payer: earlier.payer, txHash: earlier.txHash }, 'an earlier attempt was used on-chain; payment settled with it');
        return settled ? { ok: true, payment: settled, txHash: earlier.txHash } : fail(SettleReason.processing, 'The payment changed state; reload to see it.');
      }
      if (closed) {
        await this.payments.transition(p.id, 'processing', 'failed', {
          failureReason: 'The authorization expired before its transaction was mined.',
        });
        return fail(SettleReason.expired, 'The payment session expired before the payment was confirmed.');
      }
      await this.payments.transition(p.id, 'processing', 'pending', {
        payer: undefined,
        txHash: undefined,
        attemptedBy: payer ? withAttempt(p, payer, p.authNonce) : p.attemptedBy,
        authNonce: undefined,
      });
      this.log.warn({ paymentId: p.id }, 'settlement transaction was lost; payment is pending again');
      return fail(SettleReason.submitFailed, 'The payment was not sent. Nothing was charged; please try again.');
    } catch (err) {
      this.log.warn({ err, paymentId: p.id }, 'chain unavailable while resolving a processing payment');
      return fail(SettleReason.chainUnavailable, 'The chain could not be reached; try again shortly.');
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

export interface ReconcileSummary {
  checked: number;
  settled: number;
  failed: number;
  pending: number;
  processing: number;
  /** Pending payments with a settle attempt that the reconciler expired (none of it was used). */
  expired: number;
}

interface UsedAuthorization {
  payer: Address;
  txHash: Hex;
  /** Set when the payer chose the nonce (x402); else the payment's derived nonce. */
  nonce?: string;
}

/**
 * An `attemptedBy` entry: the payer (the payment's derived nonce), or `payer:nonce` when the payer
 * chose the nonce (x402 clients sign a random one).
 */
function attemptKey(payer: string, nonce?: string): string {
  const a = getAddress(payer.toLowerCase());
  return nonce ? `${a}:${nonce.toLowerCase()}` : a;
}

function parseAttempt(entry: string): { payer: Address; nonce?: string } {
  const [payer, nonce] = entry.split(':');
  return nonce ? { payer: getAddress(payer!.toLowerCase()), nonce } : { payer: getAddress(payer!.toLowerCase()) };
}

/** `attemptedBy` with this attempt added (checksummed, once). */
function withAttempt(p: Pick<Payment, 'attemptedBy'>, payer: Address, nonce?: string): string[] {
  const list = p.attemptedBy ?? [];
  const key = attemptKey(payer, nonce);
  return list.some((a) => a.toLowerCase() === key.toLowerCase()) ? list : [...list, key];
}

// ---------------------------------------------------------------------------- helpers

/** The session expiry in unix seconds: the authorization's validBefore. */
export function validBeforeOf(p: Payment): bigint {
  return BigInt(Math.floor(Date.parse(p.expiresAt) / 1000));
}

/** Why a payment (by its effective status) cannot be paid now, or undefined when it can. */
export function statusFailure(p: Payment): AuthorizationFailure | undefined {
  switch (p.status) {
    case 'pending':
      return undefined;
    case 'expired':
      return fail(SettleReason.expired, 'This payment session has expired.');
    case 'settled':
    case 'refunded':
      return fail(SettleReason.alreadySettled, 'This payment has already been paid.');
    case 'canceled':
      return fail(SettleReason.canceled, 'The merchant canceled this payment. Nothing was charged.');
    case 'failed':
      return fail(SettleReason.paymentFailed, 'This payment has failed and can no longer be paid.');
    case 'processing':
      return fail(SettleReason.processing, 'A payment for this checkout is already being processed.');
  }
}

/** The fields we issued must come back unchanged (x402: recipient, value, validity window). */
function compareAuthorization(got: TransferAuthorization, want: TransferAuthorization): Fail<SettleReason> | undefined {
  if (!isAddressEqual(got.to, want.to)) {
    return fail(SettleReason.wrongRecipient, 'The authorization pays the wrong recipient.', 'authorization.to');
  }
  if (got.value !== want.value) {
    return fail(SettleReason.wrongAmount, `The authorization must be for exactly ${want.value} base units.`, 'authorization.value');
  }
  if (got.nonce.toLowerCase() !== want.nonce.toLowerCase()) {
    return fail(SettleReason.wrongNonce, 'The authorization nonce was not issued for this payment.', 'authorization.nonce');
  }
  if (got.validBefore !== want.validBefore) {
    return fail(SettleReason.wrongValidity, 'The authorization must be valid until the session expiry.', 'authorization.validBefore');
  }
  if (got.validAfter > got.validBefore) {
    return fail(SettleReason.wrongValidity, 'The authorization validity window is empty.', 'authorization.validAfter');
  }
  return undefined;
}

/**
 * An authorization whose payer chose the nonce and window (x402): the recipient and exact amount
 * we issue, a window that is open now and closes no later than the session expiry.
 */
function comparePayerNonceAuthorization(got: TransferAuthorization, want: TransferAuthorization): Fail<SettleReason> | undefined {
  if (!isAddressEqual(got.to, want.to)) {
    return fail(SettleReason.wrongRecipient, 'The authorization pays the wrong recipient.', 'authorization.to');
  }
  if (got.value !== want.value) {
    return fail(SettleReason.wrongAmount, `The authorization must be for exactly ${want.value} base units.`, 'authorization.value');
  }
  if (got.validBefore > want.validBefore) {
    return fail(SettleReason.wrongValidity, 'The authorization must expire no later than the session.', 'authorization.validBefore');
  }
  if (got.validAfter > got.validBefore) {
    return fail(SettleReason.wrongValidity, 'The authorization validity window is empty.', 'authorization.validAfter');
  }
  return undefined;
}

const VERIFY_TO_SETTLE: Record<VerifyReason | 'submit_failed', SettleReason> = {
  invalid_signature: SettleReason.invalidSignature,
  authorization_used: SettleReason.alreadySettled,
  insufficient_balance: SettleReason.insufficientBalance,
  not_yet_valid: SettleReason.notYetValid,
  expired: SettleReason.expired,
  simulation_failed: SettleReason.simulationFailed,
  chain_unavailable: SettleReason.chainUnavailable,
  submit_failed: SettleReason.submitFailed,
};

const MESSAGES: Partial<Record<SettleReason, string>> = {
  invalid_signature: 'The signature does not match the paying wallet.',
  insufficient_balance: 'The wallet does not hold enough USDC for this payment.',
  expired: 'This payment session has expired.',
  not_yet_valid: 'The authorization is not valid yet.',
  chain_unavailable: 'The payment network could not be reached. Nothing was charged; try again shortly.',
  submit_failed: 'The payment could not be sent. Nothing was charged; try again shortly.',
};

/** The verify/submit reason a failed relay stands for (the customer's message depends on it). */
function relayFailureReason(r: Extract<RelayOutcome, { status: 'failed' }>): VerifyReason | 'submit_failed' {
  if (r.reason === 'rejected') return r.cause ?? 'submit_failed';
  if (r.reason === 'reverted') return 'simulation_failed';
  return r.reason;
}

function mapVerifyFailure(f: Fail<VerifyReason | 'submit_failed'>): Fail<SettleReason> {
  const reason = VERIFY_TO_SETTLE[f.reason];
  return fail(reason, MESSAGES[reason] ?? f.message, f.param ? `authorization.${f.param}` : undefined);
}
