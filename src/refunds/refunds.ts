/**
 * Refunds of settled payments (DESIGN.md 10, docs/refunds.md).
 *
 * A refund is paid on-chain from the merchant's settlement wallet (its custodial wallet)
 * back to the address that paid, through the same custodial mover as transfers
 * (`moveOnce`: an EIP-3009 transfer relayed with gas paid by the service). Its nonce is
 * derived from the refund id, so a refund moves money at most once however often it is
 * retried, by this process, a restart or another instance.
 *
 * Amounts: in the payment's currency; the stablecoin amount is the same share of the
 * payment's locked stablecoin amount (the rate locked at creation). The refund that brings
 * the total to the full amount takes exactly what is left, so partial refunds add up to the
 * settled stablecoin amount to the base unit.
 *
 * Exactly one refund per unit: the reservation (sum of pending and succeeded refunds) is
 * checked and the refund row inserted in one store transaction, so 20 parallel requests for
 * the full amount create one refund and 19 refusals.
 */
import { inMode, servedBy } from '../lib/livemode.js';
import { formatUnits, type Address } from 'viem';
import type { Logger } from 'pino';
import type { Store, Tx } from '../store/index.js';
import { newId, nowIso } from '../lib/ids.js';
import { fail, type Result } from '../lib/results.js';
import type { ChainPort } from '../chain/chain-port.js';
import type { AccountsService } from '../accounts/accounts.js';
import type { FxService } from '../fx/rates.js';
import { tooManyDecimals, usdcDecimal } from '../lib/money.js';
import { Payments, type Payment, type PaymentsService } from '../payments/payments.js';
import { moveOnce, type MoveOutcome } from '../wallet/custodial-move.js';
import { endRowSpend, type MoneyModuleOptions, type SpendInTx } from '../wallet/money-module.js';
import type { RelayAttempts } from '../chain/owned-relay.js';
import type { CreateRefundInput, ListRefundsQuery, RefundResource } from './refund-schemas.js';
import { executeEscrowRefund, REFUND_DEADLINE_ROOM_MS, type EscrowRefundPort } from './escrow.js';
import { Refunds, RefundIdempotencyKeys, RefundReason, REFUND_NONCE_KIND, refundResource, refusal, sha256, type Refund } from './model.js';

export { Refunds, RefundReason, REFUND_NONCE_KIND, refundResource, type Refund, type EscrowRefundState } from './model.js';

export interface CreatedRefund {
  refund: Refund;
  replayed?: boolean;
}

/**
 * Where the refund's events go, inside the refund's own transaction (the webhooks outbox, whose
 * `record` fits): a port, so refunds does not import webhooks, which imports the refund schema.
 */
export interface RefundEvents {
  record(
    tx: Tx,
    type: 'refund.succeeded' | 'refund.failed' | 'payment.refunded',
    payment: Payment,
    nowMs: number,
    extra: { refund: RefundResource },
  ): Promise<unknown>;
}

export interface RefundsOptions {
  store: Store;
  payments: PaymentsService;
  accounts: AccountsService;
  chain: ChainPort;
  fx: FxService;
  outbox: RefundEvents;
  logger: Logger;
  /** How long a refund request waits for its receipt before answering `pending`. */
  confirmTimeoutMs?: number;
  /** The attempt ledger: one owner per relayed move across instances (src/chain/owned-relay.ts, issue 21). */
  attempts?: RelayAttempts;
  /** With a chain per mode: the mode whose refunds this instance pays (docs/test-mode.md); unset: both. */
  livemode?: boolean;
  /** Ends a refund's spend reservation with its outcome (src/policies/guard.ts `endReservationIn`). */
  endSpend?: MoneyModuleOptions['endSpend'];
  /** The auth-capture escrow's refunds, when the chain has the escrow (manual-capture payments, escrow.ts). */
  escrow?: EscrowRefundPort;
}

export class RefundsService {
  private readonly inFlight = new Set<string>();
  private closed = false;

  constructor(private readonly o: RefundsOptions) {}

  /**
   * Validates, reserves and pays a refund; resolves with it `succeeded`, `failed` (nothing
   * moved: create a new refund to retry) or `pending` (the chain has not confirmed yet; the
   * reconciler finishes it).
   */
  async create(
    accountId: string,
    paymentId: string,
    input: CreateRefundInput,
    idempotencyKey?: string,
    livemode = true,
    /** The agent's spend reservation, written in the refund's own transaction (src/policies/guard.ts SpendSlot). */
    spend?: SpendInTx,
  ): Promise<Result<CreatedRefund, RefundReason>> {
    const p = await this.o.payments.getForAccount(accountId, paymentId, livemode);
    if (!p || !servedBy(p, this.o.livemode)) return fail(RefundReason.notFound, `No such payment: ${paymentId}`);
    const requestHash = sha256(JSON.stringify([paymentId, input.amount ?? null, input.reason ?? null]));
    const idemId = idempotencyKey ? sha256(JSON.stringify(livemode ? [accountId, idempotencyKey] : [accountId, idempotencyKey, 'test'])) : undefined;
    if (idemId) {
      const replay = await this.replay(idemId, requestHash);
      if (replay) return replay;
    }
    const refused = refusal(p);
    if (refused) return refused;
    const account = await this.o.accounts.get(p.accountId);
    if (!account) return fail(RefundReason.notFound, `No such payment: ${paymentId}`);
    const from = this.o.chain.custodialAddress(account.walletIndex);

    const paymentMinor = this.minor(p.amount, p.currency);
    if (paymentMinor === undefined) return fail(RefundReason.invalidAmount, 'The payment amount cannot be read.');
    let requestedMinor: bigint | undefined;
    if (input.amount !== undefined) {
      const text = /^\d+(\.\d+)?$/.test(String(input.amount)) ? String(input.amount) : undefined;
      requestedMinor = text === undefined ? undefined : this.minor(text, p.currency);
      if (requestedMinor === undefined) {
        return fail(RefundReason.invalidAmount, tooManyDecimals(p.currency, this.o.fx.currency(p.currency)?.decimals ?? 2), 'amount');
      }
    }

    // Balance read outside the transaction (slow I/O); what other pending refunds will take is
    // subtracted inside it.
    let balance: bigint;
    try {
      balance = await this.o.chain.balanceOf(from);
    } catch {
      return fail(RefundReason.chainUnavailable, 'The chain could not be reached to check the settlement wallet; try again shortly.');
    }
    // A manual-capture payment refunds through the escrow, until its refund deadline (escrow.ts).
    const manual = p.captureMethod === 'manual';
    if (manual) {
      const late = await this.escrowDeadline(p);
      if (late) return late;
    }

    const reserved = await this.o.store.transaction(async (tx): Promise<Result<CreatedRefund, RefundReason>> => {
      if (idemId) {
        const seen = await tx.table(RefundIdempotencyKeys).get(idemId);
        if (seen) return (await this.replay(idemId, requestHash, tx))!;
      }
      const now = await tx.table(Payments).get(paymentId);
      if (!now) return fail(RefundReason.notFound, `No such payment: ${paymentId}`);
      const stillRefused = refusal(now);
      if (stillRefused) return stillRefused;
      const others = (await tx.table(Refunds).findMany({ paymentId })).filter((r) => r.status !== 'failed');
      const takenMinor = others.reduce((s, r) => s + BigInt(r.amountMinor), 0n);
      const takenStable = others.reduce((s, r) => s + BigInt(r.stablecoinAmount), 0n);
      // What can go back: the payment, or for a manual capture what was captured (its share of the amount).
      const limitStable = manual ? BigInt(now.amountCaptured ?? '0') : BigInt(now.stablecoinAmount);
      const limitMinor = manual ? (paymentMinor * limitStable) / BigInt(now.stablecoinAmount) : paymentMinor;
      const leftMinor = limitMinor - takenMinor;
      const leftStable = limitStable - takenStable;
      const fmt = (minor: bigint) => `${this.decimal(minor, now.currency)} ${now.currency}`;
      const of = manual ? `of ${fmt(limitMinor)} captured` : `of ${fmt(paymentMinor)}`;
      const held = manual ? BigInt(now.amountCapturable ?? '0') : 0n;
      const heldNote = held > 0n ? ` The ${usdcDecimal(held)} USDC still held is not refunded: release it with POST /v1/payments/${now.id}/void.` : '';
      if (leftMinor <= 0n) {
        return fail(RefundReason.moreThanLeft, `Nothing is left to refund: ${fmt(takenMinor)} ${of} is already refunded or being refunded.${heldNote}`, 'amount');
      }
      const amountMinor = requestedMinor ?? leftMinor;
      if (amountMinor > leftMinor) {
        return fail(RefundReason.moreThanLeft, `amount is more than is left to refund: at most ${fmt(leftMinor)} (${of}).${heldNote}`, 'amount');
      }
      const share = (BigInt(now.stablecoinAmount) * amountMinor) / paymentMinor;
      const stable = amountMinor === leftMinor || share > leftStable ? leftStable : share;
      if (stable <= 0n) return fail(RefundReason.invalidAmount, 'amount is too small to refund in the stablecoin.', 'amount');
      // Pending refunds from the same wallet have not left it yet.
      const pendingOut = (await tx.table(Refunds).findMany({ accountId, status: 'pending' })).filter((r) => servedBy(r, this.o.livemode)).reduce((s, r) => s + BigInt(r.stablecoinAmount), 0n);
      if (balance - pendingOut < stable) {
        return fail(
          RefundReason.insufficientBalance,
          `The settlement wallet ${from} holds ${usdcDecimal(balance - pendingOut > 0n ? balance - pendingOut : 0n)} USDC available; this refund needs ${usdcDecimal(stable)} USDC. Fund the wallet and try again.`,
        );
      }
      const at = nowIso();
      // Over a spend cap this throws and aborts the transaction: no refund, no reservation.
      const spendReservationId = await spend?.reserveIn(tx);
      const refund = await tx.table(Refunds).insert({
        ...(spendReservationId ? { spendReservationId } : {}),
        id: newId('re'),
        accountId,
        paymentId,
        status: 'pending',
        amount: this.decimal(amountMinor, now.currency),
        amountMinor: amountMinor.toString(),
        currency: now.currency,
        stablecoinAmount: stable.toString(),
        rate: now.rate,
        ...(input.reason !== undefined ? { reason: input.reason } : {}),
        fromIndex: account.walletIndex,
        from,
        to: now.payer!,
        createdAt: at,
        updatedAt: at,
        livemode,
        ...(manual ? { escrow: { hash: now.paymentInfoHash! } } : {}),
      });
      if (idemId) await tx.table(RefundIdempotencyKeys).insert({ id: idemId, accountId, requestHash, refundId: refund.id, createdAt: at });
      return { ok: true, refund };
    });
    if (!reserved.ok || reserved.replayed) return reserved;
    return { ok: true, refund: await this.execute(reserved.refund.id) };
  }

  /** The account's refunds that have succeeded (reports count the money that went back). */
  succeededOf(accountId: string): Promise<Refund[]> {
    return this.o.store.table(Refunds).findMany({ accountId, status: 'succeeded' });
  }

  /** Every refund of the account's payment, oldest first. */
  async ofPayment(accountId: string, paymentId: string): Promise<Refund[]> {
    return (await this.o.store.table(Refunds).findMany({ paymentId }))
      .filter((r) => r.accountId === accountId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async get(accountId: string, id: string, livemode = true): Promise<Refund | undefined> {
    const r = await this.o.store.table(Refunds).get(id);
    return r && r.accountId === accountId && inMode(r, livemode) ? r : undefined;
  }

  /** The payment's refunds, newest first. */
  async list(accountId: string, paymentId: string, q: ListRefundsQuery, livemode = true): Promise<Result<{ data: Refund[]; hasMore: boolean }, 'not_found' | 'invalid_cursor'>> {
    const p = await this.o.payments.getForAccount(accountId, paymentId, livemode);
    if (!p) return fail('not_found', `No such payment: ${paymentId}`);
    const table = this.o.store.table(Refunds);
    if (q.starting_after) {
      const cursor = await table.get(q.starting_after);
      if (!cursor || cursor.paymentId !== paymentId) return fail('invalid_cursor', `No such refund: ${q.starting_after}`, 'starting_after');
    }
    const rows = await table.findMany({ paymentId }, { order: 'desc', after: q.starting_after, limit: q.limit + 1 });
    return { ok: true, data: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /** Pays a pending refund (again): the nonce makes a repeat find the first transaction. */
  async execute(id: string): Promise<Refund> {
    const r = await this.o.store.table(Refunds).get(id);
    if (!r || r.status !== 'pending' || this.inFlight.has(id)) return r!;
    this.inFlight.add(id);
    try {
      let outcome: MoveOutcome;
      try {
        const escrow = this.o.escrow;
        outcome = r.escrow && escrow
          ? await executeEscrowRefund({ store: this.o.store, chain: this.o.chain, escrow, confirmTimeoutMs: this.o.confirmTimeoutMs, attempts: this.o.attempts }, r)
          : r.escrow
            ? { status: 'pending', message: 'the escrow is not available on this chain' }
            : await moveOnce(
          this.o.chain,
          { fromIndex: r.fromIndex, to: r.to as Address, value: BigInt(r.stablecoinAmount), kind: REFUND_NONCE_KIND, id: r.id },
          this.o.confirmTimeoutMs,
          this.o.attempts,
        );
      } catch (err) {
        outcome = { status: 'pending', message: `the chain could not be asked: ${(err as Error).message}` };
      }
      return await this.record(r, outcome);
    } finally {
      this.inFlight.delete(id);
    }
  }

  private async record(r: Refund, outcome: MoveOutcome): Promise<Refund> {
    if (outcome.status === 'pending') {
      this.o.logger.warn({ refund: r.id, message: outcome.message }, 'refund not confirmed yet; the reconciler finishes it');
      if (outcome.txHash) {
        await this.o.store.write(Refunds, (t) => t.update(r.id, { txHash: outcome.txHash, updatedAt: nowIso() }, { status: 'pending' }));
      }
      return (await this.o.store.table(Refunds).get(r.id))!;
    }
    return this.o.store.transaction(async (tx) => {
      const refunds = tx.table(Refunds);
      const at = nowIso();
      if (outcome.status === 'failed') {
        const failed = await refunds.update(
          r.id,
          { status: 'failed', failureReason: `Nothing was refunded: ${outcome.message}`, updatedAt: at },
          { status: 'pending' },
        );
        if (!failed) return (await refunds.get(r.id))!;
        await endRowSpend(tx, this.o, r, { ok: false, reason: 'refund_failed' }, new Date());
        const p = (await tx.table(Payments).get(r.paymentId))!;
        await this.o.outbox.record(tx, 'refund.failed', p, Date.now(), { refund: refundResource(failed) });
        this.o.logger.warn({ refund: r.id, reason: outcome.reason }, 'refund failed on chain; nothing moved');
        return failed;
      }
      const done = await refunds.update(r.id, { status: 'succeeded', txHash: outcome.txHash, succeededAt: at, updatedAt: at }, { status: 'pending' });
      if (!done) return (await refunds.get(r.id))!;
      await endRowSpend(tx, this.o, r, { ok: true }, new Date());
      await this.applyToPayment(tx, done);
      return done;
    });
  }

  /** Adds a succeeded refund to the payment; `refunded` once everything is back. */
  private async applyToPayment(tx: Tx, refund: Refund): Promise<void> {
    const payments = tx.table(Payments);
    const p = (await payments.get(refund.paymentId))!;
    const paymentMinor = this.minor(p.amount, p.currency) ?? 0n;
    const minorBefore = p.amountRefunded ? (this.minor(p.amountRefunded, p.currency) ?? 0n) : 0n;
    const minor = minorBefore + BigInt(refund.amountMinor);
    const stable = BigInt(p.stablecoinRefunded ?? '0') + BigInt(refund.stablecoinAmount);
    const patch = { amountRefunded: this.decimal(minor, p.currency), stablecoinRefunded: stable.toString() };
    // A manual capture is refunded in full when all it captured is back and nothing is held any more
    // (a refund while some is still held leaves it `captured`; the void that follows completes it).
    const full = p.captureMethod === 'manual'
      ? p.status === 'captured' && stable >= BigInt(p.amountCaptured ?? '0') && BigInt(p.amountCapturable ?? '0') === 0n
      : minor >= paymentMinor && p.status === 'settled';
    let after: Payment | undefined;
    // The status change goes through the payments service (its listeners run in this transaction).
    if (full) after = await this.o.payments.transitionIn(tx, p.id, p.status, 'refunded', patch);
    after ??= await payments.update(p.id, { ...patch, updatedAt: nowIso() });
    const data = { refund: refundResource(refund) };
    await this.o.outbox.record(tx, 'refund.succeeded', after!, Date.now(), data);
    if (full) await this.o.outbox.record(tx, 'payment.refunded', after!, Date.now(), data);
  }

  /**
   * The void that empties a manual capture's hold after all it captured was refunded: the payment
   * becomes `refunded` in the void's own transaction, with `payment.refunded` (its last refund in
   * `data.refund`). Called by the manual-capture sessions (wired in src/core/build.ts).
   */
  async completedByVoid(tx: Tx, p: Payment): Promise<Payment | undefined> {
    if (p.status !== 'captured' || BigInt(p.amountCapturable ?? '0') !== 0n) return undefined;
    const refunded = BigInt(p.stablecoinRefunded ?? '0');
    if (refunded === 0n || refunded < BigInt(p.amountCaptured ?? '0')) return undefined;
    const after = await this.o.payments.transitionIn(tx, p.id, 'captured', 'refunded');
    if (!after) return undefined;
    const last = (await tx.table(Refunds).findMany({ paymentId: p.id, status: 'succeeded' })).sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
    if (last) await this.o.outbox.record(tx, 'payment.refunded', after, Date.now(), { refund: refundResource(last) });
    return after;
  }

  /** The refund deadline of a manual capture's escrow, refused with room to spare; undefined while open. */
  private async escrowDeadline(p: Payment): Promise<Result<never, RefundReason> | undefined> {
    if (!this.o.escrow || !p.paymentInfoHash) return fail(RefundReason.chainUnavailable, 'The escrow of this manual-capture payment is not available on this chain.');
    let terms;
    try {
      terms = await this.o.escrow.terms(p.paymentInfoHash);
    } catch {
      return fail(RefundReason.chainUnavailable, 'The chain could not be reached to read the escrow; try again shortly.');
    }
    if (!terms) return fail(RefundReason.notSettled, 'The escrow holds no authorization of this payment that this service operates.');
    const deadline = terms.refundExpiry * 1000;
    if (Date.now() >= deadline - REFUND_DEADLINE_ROOM_MS) {
      return fail(
        RefundReason.refundDeadlinePassed,
        `The refund deadline of this payment (${new Date(deadline).toISOString()}) has passed: the escrow no longer accepts refunds of it. Send the money back from the settlement wallet yourself if you must.`,
      );
    }
    return undefined;
  }

  /** Re-runs every pending refund (after a crash or an unconfirmed receipt); safe to repeat. */
  async reconcile(): Promise<number> {
    const pending = (await this.o.store.table(Refunds).findMany({ status: 'pending' })).filter((r) => servedBy(r, this.o.livemode));
    let n = 0;
    for (const r of pending) {
      if (this.closed) break;
      if (this.inFlight.has(r.id)) continue;
      const after = await this.execute(r.id);
      if (after.status !== 'pending') n++;
    }
    return n;
  }

  // `reconcile` runs as the scheduler's `reconcile:refunds` job (src/core/build.ts).

  close(): void {
    this.closed = true;
  }

  private async replay(idemId: string, requestHash: string, tx?: Tx): Promise<Result<CreatedRefund, RefundReason> | undefined> {
    const seen = tx ? await tx.table(RefundIdempotencyKeys).get(idemId) : await this.o.store.table(RefundIdempotencyKeys).get(idemId);
    if (!seen) return undefined;
    if (seen.requestHash !== requestHash) {
      return fail(RefundReason.idempotencyConflict, 'Keys for idempotent requests can only be used with the same parameters they were first used with.');
    }
    const refund = tx ? await tx.table(Refunds).get(seen.refundId) : await this.o.store.table(Refunds).get(seen.refundId);
    return refund ? { ok: true, refund, replayed: true } : undefined;
  }

  private minor(amount: string, currency: string): bigint | undefined {
    const parsed = this.o.fx.parseAmount(amount, currency);
    return parsed.ok ? parsed.minor : undefined;
  }

  private decimal(minor: bigint, currency: string): string {
    const parsed = this.o.fx.parseAmount('0', currency);
    const decimals = parsed.ok ? parsed.info.decimals : 2;
    return formatUnits(minor, decimals);
  }
}

