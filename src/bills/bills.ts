import { formatUnits, type Address } from 'viem';
import type { Account, AccountsService } from '../accounts/accounts.js';
import type { ChainPort } from '../chain/chain-port.js';
import type { FxService } from '../fx/rates.js';
import { callerMark, isLive, servedBy, type CallMeta } from '../lib/livemode.js';
import { newId, nowIso } from '../lib/ids.js';
import { formatUsdc } from '../lib/money.js';
import { fail, type Result } from '../lib/results.js';
import { checkPerOperation, limitsFor, releaseSpend, type Reservation } from '../limits/limits.js';
import { defineTable, type Store, type Tx } from '../store/index.js';
import type { MoveOutcome } from '../wallet/custodial-move.js';
import { holdKey, withWalletFunds } from '../wallet/holds.js';
import type { WalletDirectory } from '../wallet/directory.js';
import { MoneyModule, endRowSpend, moveFailure, recordUserMove, submittedMove, type MoneyModuleOptions, type SpendInTx, type SpendOutcome } from '../wallet/money-module.js';
import { billerCollectionIndex } from '../wallet/reserved.js';
import { checkBillAmount, validateAccountNumber } from './bill-checks.js';
import { BILLER_CURRENCY_DECIMALS, type Biller, type BillerCatalogue } from './biller-schema.js';
import { findBiller } from './find-biller.js';
import { RETRYABLE_BILL_REASONS, type BillProvider, type BillReceipt } from './sandbox-provider.js';
import type { PayBillInput } from './bill-inputs.js';

/**
 * Bill payments: the stablecoin moves on-chain from the user's custodial wallet to the
 * biller's collection wallet, then the provider sells the bill (receipt, and a token for
 * prepaid electricity). If the provider finally declines, the money goes back from the
 * collection wallet (also custodial) to the user.
 *
 *   submitted -> paid -> completed
 *   submitted -> failed                      (nothing moved)
 *   paid -> refunding -> refunded            (provider declined after payment)
 *
 * `paid` with a retryable provider error stays `paid`; `reconcile` retries the purchase
 * with the same reference (the payment id), which providers treat as idempotent.
 */
export type BillStatus = 'submitted' | 'paid' | 'completed' | 'failed' | 'refunding' | 'refunded';

export interface BillPayment {
  livemode?: boolean; // false: paid on test mode's chain (docs/test-mode.md)
  readonly id: string;
  accountId: string;
  status: BillStatus;
  billerId: string;
  billerName: string;
  category: string;
  accountNumber: string;
  customerName: string;
  /** In the biller's currency. */
  currency: string;
  amount: string;
  amountMinor: string;
  /** What the user typed, if in another currency. */
  inputAmount: string;
  inputCurrency: string;
  stablecoinAmount: string;
  /** Units of the biller's currency per 1 stablecoin. */
  rate: string;
  fromIndex: number;
  fromAddress: string;
  collectionIndex: number;
  collectionAddress: string;
  reservation?: Reservation;
  /** The spend policy's reservation, written in the transaction that wrote this row; ended by its outcome (docs/policies.md). */
  spendReservationId?: string;
  txHash?: string;
  receipt?: BillReceipt;
  refundTxHash?: string;
  failureReason?: string;
  failureMessage?: string;
  requestId?: string;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
}

export const BillPayments = defineTable<BillPayment>({ name: 'bill_payments', indexes: ['accountId', 'status'] });

export const BillReason = {
  accountNotFound: 'account_not_found',
  unknownBiller: 'unknown_biller',
  ambiguousBiller: 'ambiguous_biller',
  invalidAccountNumber: 'invalid_account_number',
  customerNotFound: 'customer_not_found',
  amountOutOfRange: 'amount_out_of_range',
  invalidAmount: 'invalid_amount',
  unsupportedCurrency: 'unsupported_currency',
  tooManyDecimals: 'too_many_decimals',
  insufficientBalance: 'insufficient_balance',
  overLimit: 'over_limit',
  providerUnavailable: 'provider_unavailable',
  purchaseDeclined: 'purchase_declined',
  paymentFailed: 'payment_failed',
  chainUnavailable: 'chain_unavailable',
} as const;
export type BillFailure = (typeof BillReason)[keyof typeof BillReason];

/** Everything checked before money moves; also what the confirmation prompt shows. */
export interface BillQuote {
  account: Account;
  biller: Biller;
  accountNumber: string;
  customerName: string;
  amountMinor: bigint;
  amount: string;
  stablecoinAmount: bigint;
  rate: string;
  inputAmount: string;
  inputCurrency: string;
}

export type BillsOptions = MoneyModuleOptions;

const fmtStable = formatUsdc;

export class BillsService extends MoneyModule<BillsOptions> {
  constructor(
    store: Store,
    chain: ChainPort,
    fx: FxService,
    accounts: AccountsService,
    wallets: WalletDirectory,
    readonly catalogue: BillerCatalogue,
    private readonly provider: BillProvider,
    opts: BillsOptions = {},
  ) {
    super(store, chain, fx, accounts, wallets, opts);
    // Two billers on one collection wallet would mix their money: refuse to start.
    const seen = new Map<number, string>();
    for (const b of catalogue.billers) {
      const i = billerCollectionIndex(b.collectionWallet);
      const other = seen.get(i);
      if (other) throw new Error(`billers ${other} and ${b.id} hash to the same collection wallet index ${i}`);
      seen.set(i, b.id);
    }
  }

  get(id: string): Promise<BillPayment | undefined> {
    return this.store.table(BillPayments).get(id);
  }

  /** `livemode`: one mode's only (live rows may carry no `livemode`, so those are filtered here). */
  async history(accountId: string, opts: { limit?: number; livemode?: boolean } = {}): Promise<BillPayment[]> {
    const limit = opts.limit ?? 50;
    const t = this.store.table(BillPayments);
    if (opts.livemode === undefined) return t.findMany({ accountId }, { order: 'desc', limit });
    if (!opts.livemode) return t.findMany({ accountId, livemode: false }, { order: 'desc', limit });
    // Live rows mostly: one page read is enough unless test rows took some of its places.
    const page = await t.findMany({ accountId }, { order: 'desc', limit });
    if (page.length < limit || page.every(isLive)) return page.filter(isLive);
    return (await t.findMany({ accountId }, { order: 'desc' })).filter(isLive).slice(0, limit);
  }

  collectionAddress(biller: Pick<Biller, 'collectionWallet'>): Address {
    return this.wallets.address(billerCollectionIndex(biller.collectionWallet));
  }

  /** Resolves and checks a bill without moving money: biller, customer, amounts, per-payment limit. */
  async quote(accountId: string, input: PayBillInput): Promise<Result<{ quote: BillQuote }, BillFailure> & { candidates?: unknown }> {
    const account = await this.accounts.get(accountId);
    if (!account) return fail(BillReason.accountNotFound, 'Your account was not found.');
    const found = findBiller(this.catalogue, input.biller, account.country ? { country: account.country } : {});
    if (!found.ok) return found;
    const biller = found.biller;
    const valid = validateAccountNumber(biller, input.account_number);
    if (!valid.ok) return valid;

    const inputCurrency = input.currency ?? biller.currency;
    let amountMinor: bigint;
    let stablecoinAmount: bigint;
    if (inputCurrency === biller.currency) {
      const conv = this.fx.toStablecoin(input.amount, biller.currency);
      if (!conv.ok) return conv;
      amountMinor = conv.conversion.amountMinor;
      stablecoinAmount = conv.conversion.stablecoinAmount;
    } else {
      // Pay "10 USD" of an NGN bill: the user's amount decides the stablecoin, the biller gets its equivalent.
      const conv = this.fx.toStablecoin(input.amount, inputCurrency);
      if (!conv.ok) return conv;
      stablecoinAmount = conv.conversion.stablecoinAmount;
      const out = this.fx.fromStablecoin(stablecoinAmount, biller.currency);
      if (!out.ok) return out;
      amountMinor = out.minor;
    }
    const decimals = BILLER_CURRENCY_DECIMALS[biller.currency] ?? 2;
    const amount = formatUnits(amountMinor, decimals);
    const range = checkBillAmount(biller, amount);
    if (!range.ok) {
      return fail(range.reason === 'invalid_amount' ? BillReason.invalidAmount : BillReason.amountOutOfRange, `${range.message} You asked for ${this.fx.format(amountMinor, biller.currency)}.`, 'amount');
    }
    if (stablecoinAmount <= 0n) return fail(BillReason.invalidAmount, 'That amount is too small.', 'amount');
    const per = checkPerOperation(limitsFor(account, this.opts.defaultLimits), stablecoinAmount, fmtStable);
    if (!per.ok) return per;

    const customer = await this.provider.validateCustomer(biller.id, valid.accountNumber);
    if (!customer.ok) {
      const reason =
        customer.reason === 'customer_not_found'
          ? BillReason.customerNotFound
          : customer.reason === 'invalid_account_number'
            ? BillReason.invalidAccountNumber
            : customer.reason === 'provider_unavailable'
              ? BillReason.providerUnavailable
              : BillReason.purchaseDeclined;
      return fail(reason, customer.message, customer.param);
    }
    const rate = this.fx.currency(biller.currency)?.rate ?? '1';
    return {
      ok: true,
      quote: {
        account,
        biller,
        accountNumber: customer.accountNumber,
        customerName: customer.customerName,
        amountMinor,
        amount,
        stablecoinAmount,
        rate,
        inputAmount: input.amount,
        inputCurrency,
      },
    };
  }

  async pay(accountId: string, input: PayBillInput, meta: CallMeta & { spend?: SpendInTx } = {}): Promise<Result<{ bill: BillPayment }, BillFailure>> {
    const q = await this.quote(accountId, input);
    if (!q.ok) return q;
    const { quote } = q;
    const fromAddress = this.wallets.addressOf(quote.account);
    const now = this.now();
    const collectionIndex = billerCollectionIndex(quote.biller.collectionWallet);
    const id = newId('bill');
    // Balance read outside, checked inside net of other moves in flight from this wallet.
    const recorded = await withWalletFunds(this.store, this.chain, fromAddress, async (tx, funds) => {
      // The spend policy's reservation in the bill's own transaction: over a cap it aborts it, and
      // neither the reservation nor the bill exists without the other.
      const spendReservationId = await meta.spend?.reserveIn(tx);
      const reserved = await funds.reserve({
        key: holdKey('bill', id),
        amount: quote.stablecoinAmount,
        limit: { account: quote.account, amount: quote.stablecoinAmount, now, defaults: this.opts.defaultLimits },
        fmt: fmtStable,
      });
      if (!reserved.ok) {
        await meta.spend?.finishIn(tx, { ok: false, reason: reserved.reason });
        return fail(reserved.reason, reserved.message, 'amount');
      }
      const bill = await tx.table(BillPayments).insert({
        ...(spendReservationId ? { spendReservationId } : {}),
        ...callerMark(this.opts.livemode, meta.livemode),
        id,
        accountId,
        status: 'submitted',
        billerId: quote.biller.id,
        billerName: quote.biller.name,
        category: quote.biller.category,
        accountNumber: quote.accountNumber,
        customerName: quote.customerName,
        currency: quote.biller.currency,
        amount: quote.amount,
        amountMinor: quote.amountMinor.toString(),
        inputAmount: quote.inputAmount,
        inputCurrency: quote.inputCurrency,
        stablecoinAmount: quote.stablecoinAmount.toString(),
        rate: quote.rate,
        fromIndex: quote.account.walletIndex,
        fromAddress,
        collectionIndex,
        collectionAddress: this.wallets.address(collectionIndex),
        reservation: reserved.reservation,
        ...(meta.requestId ? { requestId: meta.requestId } : {}),
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      });
      return { ok: true as const, bill };
    });
    if (!recorded.ok) {
      return recorded.reason === 'chain_unavailable' ? fail(BillReason.chainUnavailable, 'The network is not reachable right now; nothing was paid.') : recorded;
    }
    return this.advance(recorded.bill);
  }

  /** Bills stopped part-way and untouched for `idleMs` (for a periodic sweep). */
  async unfinished(idleMs = 120_000): Promise<BillPayment[]> {
    const t = this.store.table(BillPayments);
    const before = this.now().getTime() - idleMs;
    const rows = await Promise.all((['submitted', 'paid', 'refunding'] as const).map((status) => t.findMany({ status })));
    return rows.flat().filter((b) => Date.parse(b.updatedAt) <= before && servedBy(b, this.opts.livemode));
  }

  /** Finishes a bill left part-way (no receipt yet, refund not confirmed). Idempotent. */
  async reconcile(billId: string): Promise<Result<{ bill: BillPayment }, BillFailure>> {
    const bill = await this.get(billId);
    if (!bill) return fail(BillReason.paymentFailed, `No such bill payment: ${billId}.`);
    return this.advance(bill);
  }

  /** Moves a bill forward from whatever state it is in, as far as it can go now. */
  private async advance(bill: BillPayment): Promise<Result<{ bill: BillPayment }, BillFailure>> {
    if (bill.status === 'submitted') {
      const outcome = await this.move({ fromIndex: bill.fromIndex, to: bill.collectionAddress as Address, value: BigInt(bill.stablecoinAmount), kind: 'bill', id: bill.id });
      bill = await this.recordPayment(bill, outcome);
      if (outcome.status === 'failed') {
        return moveFailure(outcome, { rejected: BillReason.paymentFailed, thing: 'bill', done: 'paid', rejectedThing: 'payment', param: 'amount' });
      }
      if (outcome.status === 'pending') return { ok: true, bill };
    }
    if (bill.status === 'paid') {
      const purchase = await this.provider.purchase({
        billerId: bill.billerId,
        account: bill.accountNumber,
        amountMinor: BigInt(bill.amountMinor),
        currency: bill.currency,
        reference: bill.id,
      });
      if (purchase.ok) {
        const { ok: _ok, ...receipt } = purchase;
        bill = await this.patch(bill, { status: 'completed', receipt, completedAt: nowIso() }, 'paid', { ok: true });
        return { ok: true, bill };
      }
      if (RETRYABLE_BILL_REASONS.has(purchase.reason)) {
        this.opts.logger?.warn({ billId: bill.id, reason: purchase.reason }, 'bill purchase to be retried');
        bill = await this.patch(bill, { failureReason: purchase.reason, failureMessage: purchase.message }, 'paid');
        return { ok: true, bill };
      }
      bill = await this.patch(bill, { status: 'refunding', failureReason: purchase.reason, failureMessage: purchase.message }, 'paid');
    }
    if (bill.status === 'refunding') {
      const outcome = await this.move({ fromIndex: bill.collectionIndex, to: bill.fromAddress as Address, value: BigInt(bill.stablecoinAmount), kind: 'bill-refund', id: bill.id });
      if (outcome.status === 'settled') {
        bill = await this.store.transaction(async (tx) => {
          const row = await tx.table(BillPayments).update(bill.id, { status: 'refunded', refundTxHash: outcome.txHash, updatedAt: nowIso() }, { status: 'refunding' });
          // The money came back: it no longer counts against today's limit.
          if (row && bill.reservation) await releaseSpend(tx, bill.accountId, bill.reservation);
          if (row) await this.endSpend(tx, bill, { ok: false, reason: BillReason.purchaseDeclined });
          return row ?? (await tx.table(BillPayments).get(bill.id))!;
        });
      } else {
        this.opts.logger?.error({ billId: bill.id, outcome }, 'bill refund not done yet');
      }
      const refunded = bill.status === 'refunded';
      return fail(
        BillReason.purchaseDeclined,
        `${bill.billerName} declined the payment (${bill.failureMessage ?? 'declined'}). ${refunded ? 'Your money was refunded.' : 'Your refund is on its way.'}`,
      );
    }
    return { ok: true, bill };
  }

  private async recordPayment(bill: BillPayment, outcome: MoveOutcome): Promise<BillPayment> {
    const recorded = await recordUserMove<BillPayment>(this.store, outcome, {
      ...submittedMove(BillPayments, bill, 'bill'),
      moved: BigInt(bill.stablecoinAmount),
      settled: (txHash) => ({ status: 'paid', txHash }),
      failed: (o) => ({ status: 'failed', failureReason: o.reason, failureMessage: o.message }),
      // Nothing moved: the spend reservation is given back with the failure (paid: kept until the bill ends).
      ...(outcome.status === 'failed' ? { alsoIn: (tx: Tx) => this.endSpend(tx, bill, { ok: false, reason: outcome.reason }) } : {}),
    });
    return recorded.row;
  }

  /** `spent`: the bill ended, and its spend reservation (if the turn left it `reserved`) ends with it. */
  private async patch(bill: BillPayment, patch: Partial<BillPayment>, expect: BillStatus, spent?: SpendOutcome): Promise<BillPayment> {
    const row = await this.store.transaction(async (tx) => {
      const r = await tx.table(BillPayments).update(bill.id, { ...patch, updatedAt: nowIso() }, { status: expect });
      if (r && spent) await this.endSpend(tx, bill, spent);
      return r;
    });
    return row ?? (await this.get(bill.id))!;
  }

  private endSpend(tx: Tx, bill: BillPayment, outcome: SpendOutcome): Promise<void> {
    return endRowSpend(tx, this.opts, bill, outcome, this.now());
  }
}
