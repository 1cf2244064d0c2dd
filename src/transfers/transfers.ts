import type { Address } from 'viem';
import type { Account } from '../accounts/accounts.js';
import { nowIso } from '../lib/ids.js';
import { callerMark, inMode, modeMark, type CallMeta } from '../lib/livemode.js';
import { formatUsdc } from '../lib/money.js';
import { fail, type Result } from '../lib/results.js';
import { checkPerOperation, limitsFor, usedToday, SpendUsageTable } from '../limits/limits.js';
import type { RelayAttempt } from '../chain/owned-relay.js';
import type { Tx } from '../store/index.js';
import type { MoveOutcome, MoveRequest } from '../wallet/custodial-move.js';
import { attemptFor, moveWithFeeOnce, signWithFee, type FeeRequest, type PreparedMove } from '../wallet/custodial-fee-move.js';
import { holdKey, readFunds, settleHold } from '../wallet/holds.js';
import { holdAndSubmit, type SubmitDeps } from './transfer-submit.js';
import { MoneyModule, endRowSpend, moveFailure, recordUserMove, submittedMove, type MoneyModuleOptions, type SpendOutcome } from '../wallet/money-module.js';
import { FEE_WALLET_INDEX } from '../wallet/reserved.js';
import { DEFAULT_FEE_POLICY, QUOTE_TTL_MS, quoteTransfer, type FeePolicy } from './quote.js';
import { resolveRecipient } from './recipients.js';
import type { SendTransferInput } from './transfer-inputs.js';
import { buildTransferRow, Transfers, type Transfer } from './transfer-row.js';
import { SettledNotices } from './transfer-notices.js';
import { movedOnChain, submittedTransfers, unfinishedTransfers } from './transfer-recovery.js';
import type { TurnReads } from '../lib/turn-reads.js';
import { turnAccounts } from '../accounts/turn-accounts.js';
import { TransferReason, type RecordOptions, type SpendInTx, type TransferFailure, type TransferPreview, type TransferSettledListener } from './transfer-types.js';

/**
 * Cross-border peer-to-peer transfers: quote (FX + fee), then an on-chain stablecoin
 * transfer from the sender's custodial wallet, gas paid by the relayer. The row, its statuses
 * and its table are in transfer-row.ts.
 */
export { Transfers, type FeeStatus, type Transfer, type TransferStatus } from './transfer-row.js';

export { TransferReason, type TransferFailure, type SpendInTx, type TransferSettledEvent, type TransferSettledListener, type TransferPreview } from './transfer-types.js';

export interface TransfersOptions extends MoneyModuleOptions {
  feePolicy?: FeePolicy;
  quoteTtlMs?: number;
}

export class TransfersService extends MoneyModule<TransfersOptions> {
  private readonly notices = new SettledNotices({
    recipientOf: (id) => this.accounts.get(id),
    amountText: (minor, currency) => this.fx.format(minor, currency),
    sync: () => this.store.sync?.(),
    logger: this.opts.logger,
  });
  private readonly feePolicy: FeePolicy = this.opts.feePolicy ?? DEFAULT_FEE_POLICY;
  /** What a new transfer row carries of the served mode (also for firm quotes' rows). */
  readonly mark: { livemode?: false } = modeMark(this.opts.livemode);

  private get submitDeps(): SubmitDeps {
    return { store: this.store, chain: this.chain, defaultLimits: this.opts.defaultLimits, fmt: (v) => this.fmtStable(v) };
  }

  /** The wallet transfer fees are paid into. */
  get feeWalletAddress(): Address {
    return this.wallets.address(FEE_WALLET_INDEX);
  }

  /**
   * Notifies once per settled transfer (the Telegram bridge tells the recipient). Returns an unsubscribe.
   * The first listener also hears the transfers the start-up pass finished before it was there.
   */
  onTransferSettled(listener: TransferSettledListener): () => void {
    return this.notices.subscribe(listener);
  }

  get(id: string): Promise<Transfer | undefined> {
    return this.store.table(Transfers).get(id);
  }

  /** Sent and received transfers of an account, newest first (quotes never confirmed are left out); `livemode`: one mode's only. */
  async history(accountId: string, opts: { limit?: number; livemode?: boolean } = {}): Promise<Transfer[]> {
    const limit = opts.limit ?? 50;
    const t = this.store.table(Transfers);
    const [sent, received] = await Promise.all([
      t.findMany({ accountId }, { order: 'desc' }),
      t.findMany({ recipientAccountId: accountId }, { order: 'desc' }),
    ]);
    return [...sent, ...received.filter((r) => r.accountId !== accountId)]
      .filter((r) => r.status !== 'quoted' && r.status !== 'expired' && (opts.livemode === undefined || inMode(r, opts.livemode)))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
      .slice(0, limit);
  }

  fmtStable(v: bigint): string {
    return formatUsdc(v);
  }

  /**
   * Prices a transfer without recording anything: recipient, quote, limits and (if the
   * chain answers) the balance. Used for the confirmation prompt. `reads`: an agent turn's, which
   * has already looked up the sender and the recipient for its spend policy (src/lib/turn-reads.ts).
   */
  async preview(accountId: string, input: SendTransferInput, reads?: TurnReads): Promise<Result<{ preview: TransferPreview }, TransferFailure>> {
    const accounts = turnAccounts(this.accounts, reads);
    const sender = await accounts.get(accountId);
    if (!sender) return fail(TransferReason.accountNotFound, 'Your account was not found.');
    const recipient = await resolveRecipient({ accounts, wallets: this.wallets }, sender, input.recipient);
    if (!recipient.ok) return recipient;
    const recipientCurrency = recipient.recipient.kind === 'account' ? recipient.recipient.account.localCurrency : 'USDC';
    const q = quoteTransfer(
      this.fx,
      { amount: input.amount, currency: input.currency ?? sender.localCurrency, recipientCurrency },
      this.feePolicy,
    );
    if (!q.ok) return q;
    const limits = limitsFor(sender, this.opts.defaultLimits);
    const per = checkPerOperation(limits, q.quote.stablecoinAmount, (v) => this.fmtStable(v));
    if (!per.ok) return per;
    const used = await usedToday(this.store.table(SpendUsageTable), sender.id, this.now());
    if (used + q.quote.stablecoinAmount > limits.daily) {
      const left = limits.daily > used ? limits.daily - used : 0n;
      return fail(
        TransferReason.overLimit,
        `That is over your daily limit of ${this.fmtStable(limits.daily)}; ${this.fmtStable(left)} left today.`,
        'amount',
      );
    }
    return { ok: true, preview: { sender, recipient: recipient.recipient, quote: q.quote, limits } };
  }

  /** A priced transfer's row, `quoted` and valid for QUOTE_TTL_MS. */
  private newRow(p: TransferPreview, input: SendTransferInput, meta: CallMeta, now: Date): Transfer {
    const expiresAt = new Date(now.getTime() + (this.opts.quoteTtlMs ?? QUOTE_TTL_MS));
    const row = buildTransferRow({ ...p, fromAddress: this.wallets.addressOf(p.sender), input, expiresAt, now, ...(meta.requestId ? { requestId: meta.requestId } : {}) });
    return { ...row, ...callerMark(this.opts.livemode, meta.livemode) };
  }

  /** Records a quote valid for QUOTE_TTL_MS; `confirm` executes it. */
  async quote(
    accountId: string,
    input: SendTransferInput,
    meta: CallMeta = {},
  ): Promise<Result<{ transfer: Transfer }, TransferFailure>> {
    const p = await this.preview(accountId, input);
    if (!p.ok) return p;
    const transfer = await this.store.write(Transfers, (t) => t.insert(this.newRow(p.preview, input, meta, this.now())));
    return { ok: true, transfer };
  }

  /**
   * Quote and execute in one step (the agent's send_transfer): the row is written `submitted`
   * with its hold, its limit reservation and (when the fee moves with it) its relay attempt in
   * one transaction, never `quoted` first (docs/performance.md, issue 23 fourth round).
   */
  async send(
    accountId: string,
    input: SendTransferInput,
    meta: CallMeta & { spend?: SpendInTx; reads?: TurnReads } = {},
  ): Promise<Result<{ transfer: Transfer }, TransferFailure>> {
    const p = await this.preview(accountId, input, meta.reads);
    if (!p.ok) return p;
    const sender = p.preview.sender;
    const now = this.now();
    const row = this.newRow(p.preview, input, meta, now);
    const spend = meta.spend;
    // The balance read starts now and overlaps the signatures (one chain round trip off the turn).
    const firstRead = readFunds(this.store, this.chain, row.fromAddress as Address);
    firstRead.catch(() => {}); // read (and answered as chain_unavailable) by holdAndSubmit
    // Signed before the transaction (no chain call inside one), so the attempt opens with the row.
    const attempts = this.opts.attempts;
    const sign = this.withFee(row) && attempts?.open ? await signWithFee(this.chain, this.moveOf(row), this.feeOf(row)) : undefined;
    const signed = sign?.ok ? sign.signed : undefined;
    let opened: RelayAttempt | undefined;
    const submitted = await holdAndSubmit(this.submitDeps, row, sender, now, async (tx, patch) => {
      // The spend policy's reservation first: over a cap, it aborts this transaction.
      const spendReservationId = await spend?.reserveIn(tx);
      const t = tx.table(Transfers);
      const linked = spendReservationId ? { spendReservationId } : {};
      if (patch.status === 'failed') {
        await t.insert({ ...row, ...patch, ...linked });
        await spend?.finishIn(tx, { ok: false, ...(patch.failureReason ? { reason: patch.failureReason } : {}) });
        return undefined;
      }
      const inserted = await t.insert({ ...row, ...patch, ...linked });
      if (signed) {
        opened = await attempts!.open!(tx, attemptFor(this.moveOf(row), signed));
        // A new transfer's nonce was never used: someone else owning it is a bug, and nothing moved.
        if (!opened) throw new Error(`relay attempt of new transfer ${row.id} already open`);
      }
      return inserted;
    }, firstRead, signed ? { deferDurability: true } : undefined);
    // Signed: the relay journal's durable commit before the broadcast (same store) carries the
    // hold's (one fsync fewer). A settled outcome of a journaled send is made durable after the
    // reply (its commit is visible at once; a crash before its flush is finished from the chain by
    // `finishMovedOnChain` before the doors open again); anything else is durable first.
    const journaled = Boolean(signed && opened);
    const answer = submitted.ok ? await this.execute(submitted.transfer, sender, journaled ? { signed, opened } : {}, spend, journaled) : submitted;
    if (journaled && answer.ok && answer.transfer.status === 'settled') {
      void this.store.sync?.().catch((err: unknown) => this.opts.logger?.warn({ err, transferId: answer.transfer.id }, 'transfer outcome not yet durable'));
    } else await this.store.sync?.();
    return answer;
  }

  /**
   * Executes a quote: balance check, limit reservation and `quoted -> submitted` in one
   * transaction, the on-chain transfer outside it, the outcome in another.
   */
  async confirm(accountId: string, transferId: string, spend?: SpendInTx): Promise<Result<{ transfer: Transfer }, TransferFailure>> {
    const existing = await this.get(transferId);
    if (!existing || existing.accountId !== accountId) {
      return fail(TransferReason.transferNotFound, `No such transfer: ${transferId}.`);
    }
    if (existing.status !== 'quoted') {
      return fail(TransferReason.invalidState, `Transfer ${transferId} is already ${existing.status}.`);
    }
    const now = this.now();
    if (Date.parse(existing.quoteExpiresAt) <= now.getTime()) {
      await this.finishQuote(existing, 'expired', TransferReason.quoteExpired, 'The quote expired.');
      return fail(TransferReason.quoteExpired, 'That quote has expired; ask again for a fresh rate.');
    }
    const sender = await this.accounts.get(accountId);
    if (!sender) return fail(TransferReason.accountNotFound, 'Your account was not found.');

    const submitted = await holdAndSubmit(this.submitDeps, existing, sender, now, (tx, patch) =>
      tx.table(Transfers).update(existing.id, patch, { status: 'quoted' }).then(async (row) => {
        // Someone else confirmed it first: undo our reservations by aborting the transaction.
        if (!row && patch.status === 'submitted') throw new ConcurrentConfirm();
        // Refused (the balance): nothing moved, the spend reservation is given back with it.
        if (row && patch.status === 'failed') await this.endSpendIn(tx, existing, { ok: false, ...(patch.failureReason ? { reason: patch.failureReason } : {}) }, spend);
        return row;
      }),
    ).catch((e: unknown) => {
      if (e instanceof ConcurrentConfirm) return fail(TransferReason.invalidState, `Transfer ${transferId} is already being sent.`);
      throw e;
    });
    if (!submitted.ok) return submitted;
    return this.execute(submitted.transfer, sender, {}, spend);
  }

  /**
   * Retries a `submitted` transfer (same nonce: it can never pay twice) and an unpaid fee
   * of a settled one. Safe to call any number of times.
   */
  async reconcile(transferId: string): Promise<Result<{ transfer: Transfer }, TransferFailure>> {
    const t = await this.get(transferId);
    if (!t) return fail(TransferReason.transferNotFound, `No such transfer: ${transferId}.`);
    const sender = await this.accounts.get(t.accountId);
    if (!sender) return fail(TransferReason.accountNotFound, 'The sender account was not found.');
    if (t.status === 'submitted') return this.execute(t, sender);
    // A firm quote's transfer whose send never began (a store error): once the quote expired nothing can send it.
    if (t.status === 'quoted' && Date.parse(t.quoteExpiresAt) <= this.now().getTime()) {
      await this.finishQuote(t, 'expired', TransferReason.quoteExpired, 'The quote expired before the transfer was sent; nothing moved.');
      return { ok: true, transfer: (await this.get(t.id))! };
    }
    if (t.status === 'settled' && (t.feeStatus === 'pending' || t.feeStatus === 'failed')) {
      return { ok: true, transfer: await this.collectFee(t) };
    }
    return { ok: true, transfer: t };
  }

  /**
   * Transfers left `submitted` or with an unpaid fee, untouched for `idleMs` (so a sweep
   * never races a transfer still in its own request).
   */
  unfinished(idleMs = 120_000): Promise<Transfer[]> {
    return unfinishedTransfers(this.store, this.now(), idleMs, this.opts.livemode);
  }

  /**
   * Before the doors open (src/core/build.ts): `submitted` transfers whose money the chain shows
   * moved through their journaled relay attempt are recorded settled, with what the live path
   * writes (hold, fee, spend reservation, the attempt's answer). Everything else is left to
   * `reconcile`. Returns how many it recorded.
   */
  async finishMovedOnChain(isLive?: (owner: string) => Promise<boolean>): Promise<number> {
    const attempts = this.opts.attempts;
    let done = 0;
    for (const t of attempts ? await submittedTransfers(this.store, this.opts.livemode) : []) {
      const [withFee, sender] = [this.withFee(t), await this.accounts.get(t.accountId)];
      const ask = { isLive, timeoutMs: this.opts.confirmTimeoutMs };
      const moved = sender && (await movedOnChain(this.chain, attempts!, t, withFee, ask).catch((err: unknown) => void this.opts.logger?.warn({ err, transferId: t.id }, 'transfer left to reconcile')));
      if (!sender || !moved) continue;
      const id = moved.openAttempt;
      const answer = id ? (tx: Tx) => attempts!.close(id, { ok: true, txHash: moved.txHash }, tx) : undefined;
      if ((await this.record(t, sender, { status: 'settled', txHash: moved.txHash }, withFee, { answer, feeLater: true, heardLater: true })).ok) done++;
    }
    return done;
  }

  // ------------------------------------------------------------------------ internals

  private moveOf(t: Transfer): MoveRequest {
    return { fromIndex: t.fromIndex, to: t.toAddress as Address, value: BigInt(t.stablecoinAmount), kind: 'transfer', id: t.id };
  }

  private feeOf(t: Transfer): FeeRequest {
    return { to: this.feeWalletAddress, value: BigInt(t.fee), kind: 'transfer-fee' };
  }

  /** One on-chain move for the transfer and its fee when the token takes both in one transaction (issue 23 point 3). */
  private withFee(t: Transfer): boolean {
    return this.chain.batchTransfers && t.feeStatus === 'pending' && BigInt(t.fee) > 0n;
  }

  private async execute(transfer: Transfer, sender: Account, prepared: PreparedMove = {}, spend?: SpendInTx, deferSettled = false): Promise<Result<{ transfer: Transfer }, TransferFailure>> {
    const move = this.moveOf(transfer);
    const withFee = this.withFee(transfer);
    // The relay attempt's answer is written with the outcome below (one commit fewer).
    let answer: ((tx: Tx) => Promise<void>) | undefined;
    const outcome = withFee
      ? await moveWithFeeOnce(this.chain, move, this.feeOf(transfer), this.opts.confirmTimeoutMs, this.opts.attempts, { ...prepared, answerIn: (w) => void (answer = w) })
      : await this.move(move);
    return this.record(transfer, sender, outcome, withFee, { answer, spend, deferSettled });
  }

  /** A move's outcome on its row, in one transaction (the live path's and the start-up pass's). */
  private async record(transfer: Transfer, sender: Account, outcome: MoveOutcome, withFee: boolean, o: RecordOptions): Promise<Result<{ transfer: Transfer }, TransferFailure>> {
    const { answer, spend } = o;
    // `withFee`: the fee moved in the same transaction as the principal (all or none). The
    // principal left the wallet (with its fee when batched); an unpaid fee stays held until it
    // moves too, and never follows a failed principal.
    const failure = outcome.status === 'failed' ? moveFailure(outcome, { rejected: TransferReason.transferFailed, thing: 'transfer', done: 'sent' }) : undefined;
    // The relay attempt's answer and the spend reservation's end, with the outcome (commits fewer).
    // Without the turn's slot (reconcile): the row's reservation, once the outcome is known.
    const spent = failure ? { ok: false, reason: failure.reason } : outcome.status === 'pending' ? { ok: true, pending: true } : { ok: true };
    const endSpend = this.opts.endSpend;
    const reservationId = transfer.spendReservationId;
    const later = !spend && endSpend && reservationId ? (tx: Tx) => endSpend(tx, reservationId, spent, this.now()) : undefined;
    const alsoIn =
      answer || spend || later
        ? async (tx: Tx) => {
            await answer?.(tx);
            await spend?.finishIn(tx, spent);
            await later?.(tx);
          }
        : undefined;
    const recorded = await recordUserMove<Transfer>(this.store, outcome, {
      ...submittedMove(Transfers, transfer, 'transfer'),
      moved: BigInt(transfer.stablecoinAmount) + (withFee ? BigInt(transfer.fee) : 0n),
      settled: (txHash, at) => ({ status: 'settled', txHash, ...(withFee ? { feeStatus: 'settled', feeTxHash: txHash } : {}), settledAt: at }),
      failed: (o) => ({ status: 'failed', failureReason: o.reason, failureMessage: o.message, feeStatus: 'none' }),
      ...(alsoIn ? { alsoIn } : {}),
    }, o.deferSettled && outcome.status === 'settled' ? { deferDurability: true } : undefined);
    let row = recorded.row;
    if (failure) return failure;
    if (outcome.status === 'settled') {
      if (!withFee && !o.feeLater) row = await this.collectFee(row);
      // Only the call that moved the row to `settled` notifies: the recipient hears once (transfer-notices.ts).
      if (recorded.changed && o.deferSettled) this.notices.whenDurable(row, sender);
      else if (recorded.changed) this.notices.now(row, sender, o.heardLater);
    }
    return { ok: true, transfer: row };
  }

  /** The fee goes after the principal, so a failed transfer never costs a fee. */
  private async collectFee(transfer: Transfer): Promise<Transfer> {
    const fee = BigInt(transfer.fee);
    if (fee === 0n || transfer.feeStatus === 'settled' || transfer.feeStatus === 'none') return transfer;
    const outcome = await this.move({ fromIndex: transfer.fromIndex, to: this.feeWalletAddress, value: fee, kind: 'transfer-fee', id: transfer.id });
    if (outcome.status !== 'settled') {
      this.opts.logger?.warn({ transferId: transfer.id, outcome }, 'transfer fee not collected yet');
    }
    const patch: Partial<Transfer> =
      outcome.status === 'settled'
        ? { feeStatus: 'settled', feeTxHash: outcome.txHash }
        : outcome.status === 'failed'
          ? { feeStatus: 'failed' }
          : { feeStatus: 'pending', ...(outcome.txHash ? { feeTxHash: outcome.txHash } : {}) };
    // A failed fee keeps its hold: the sweep retries it with the same nonce, so it may still move.
    return this.store.transaction(async (tx) => {
      const t = tx.table(Transfers);
      const row = await t.update(transfer.id, { ...patch, updatedAt: nowIso() }, { feeStatus: transfer.feeStatus });
      if (row && outcome.status === 'settled') await settleHold(tx, transfer.fromAddress, holdKey('transfer', transfer.id), fee);
      return row ?? (await t.get(transfer.id))!;
    });
  }

  /** Nothing moved: the row's spend reservation (a firm quote's) is given back in the same transaction. */
  private async finishQuote(t: Transfer, status: 'failed' | 'expired', reason: string, message: string): Promise<void> {
    await this.store.transaction(async (tx) => {
      const row = await tx.table(Transfers).update(t.id, { status, failureReason: reason, failureMessage: message, feeStatus: 'none', updatedAt: nowIso() }, { status: 'quoted' });
      if (row) await this.endSpendIn(tx, t, { ok: false, reason });
    });
  }

  /** The turn's slot when it is there (it marks the turn's reservation), else the row's reservation by compare-and-set. */
  private endSpendIn(tx: Tx, t: Transfer, outcome: SpendOutcome, spend?: SpendInTx): Promise<void> {
    return spend ? spend.finishIn(tx, outcome) : endRowSpend(tx, this.opts, t, outcome, this.now());
  }
}

class ConcurrentConfirm extends Error {}

