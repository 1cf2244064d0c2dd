import type { Account, AccountsService } from '../accounts/accounts.js';
import { newId, nowIso } from '../lib/ids.js';
import { callerMark, inMode, type CallMeta, type Moded } from '../lib/livemode.js';
import { usdcDecimal } from '../lib/money.js';
import { fail, type Result } from '../lib/results.js';
import { defineTable, StoreConflictError, type Store } from '../store/index.js';
import { DEFAULT_FEE_POLICY, quoteTransfer, type FeePolicy, type TransferQuote } from '../transfers/quote.js';
import { resolveRecipient, type Recipient } from '../transfers/recipients.js';
import { buildTransferRow, type StoredQuoteFigures } from '../transfers/transfer-row.js';
import { Transfers, type Transfer, type TransferFailure, type TransfersService } from '../transfers/transfers.js';
import type { SendTransferInput } from '../transfers/transfer-inputs.js';
import type { SpendInTx } from '../wallet/money-module.js';
import type { WalletDirectory } from '../wallet/directory.js';
import { RatesUnavailable, type RateSource } from './rate-source.js';
import type { CreateQuoteInput, QuoteResource } from './quote-schemas.js';

/**
 * Firm quotes (docs/quotes.md): a price for a transfer, locked for `QUOTE_TTL` (60 s by
 * default). The row keeps every figure; executing it (`execute`) records the transfer from
 * those figures, never from the rates of the moment, and refuses once `expiresAt` has passed.
 *
 *   open -> used (a transfer executed it)         open -> expired (refused after its time)
 */
export interface Quote extends StoredQuoteFigures, Moded {
  readonly id: string;
  accountId: string;
  status: 'open' | 'used' | 'expired';
  /** What the caller typed, when the quote is bound to a recipient. */
  recipientInput?: string;
  recipientLabel?: string;
  recipientAddress?: string;
  rateSource: string;
  ratesAsOf: string;
  expiresAt: string;
  transferId?: string;
  createdAt: string;
  updatedAt: string;
}

export const Quotes = defineTable<Quote>({ name: 'quotes', indexes: ['accountId'] });

export const DEFAULT_QUOTE_TTL_MS = 60_000;

export const QuoteReason = {
  notFound: 'quote_not_found',
  expired: 'quote_expired',
  used: 'quote_used',
  mismatch: 'quote_mismatch',
  ratesUnavailable: 'rates_unavailable',
} as const;
export type QuoteFailureReason = (typeof QuoteReason)[keyof typeof QuoteReason];

export interface QuotesOptions {
  ttlMs?: number;
  /**
   * The claim-link contact a recipient names when nobody has it (src/claims `claimContact`, injected: claims
   * import quotes): such a recipient is quoted as the claim-link send it would be, into USDC (h17probe).
   */
  claimContact?: (text: string, country?: string) => { contact: string; label: string } | undefined;
  feePolicy?: FeePolicy;
  now?: () => Date;
}

export class QuotesService {
  private readonly now: () => Date;

  constructor(
    private readonly store: Store,
    private readonly rates: RateSource,
    private readonly accounts: AccountsService,
    private readonly wallets: WalletDirectory,
    private readonly transfers: TransfersService,
    private readonly opts: QuotesOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  get ttlMs(): number {
    return this.opts.ttlMs ?? DEFAULT_QUOTE_TTL_MS;
  }

  /**
   * The account's own quote of the caller's mode: another account's, or one made through a key
   * of the other mode, does not exist for it (docs/test-mode.md). `livemode`: the caller's mode.
   */
  async get(accountId: string, id: string, livemode = true): Promise<Quote | undefined> {
    const q = await this.store.table(Quotes).get(id);
    return q && q.accountId === accountId && inMode(q, livemode) ? q : undefined;
  }

  /**
   * Prices and records a quote. With a recipient it is bound to them (and their currency). A
   * test key's quote is marked test (`meta.livemode`), so only its mode reads or executes it.
   */
  async create(accountId: string, input: CreateQuoteInput, meta: CallMeta = {}): Promise<Result<{ quote: Quote }, TransferFailure | QuoteFailureReason>> {
    const sender = await this.accounts.get(accountId);
    if (!sender) return fail('account_not_found', 'Your account was not found.');
    let recipient: Recipient | undefined;
    let claim: { contact: string; label: string } | undefined;
    if (input.recipient) {
      const r = await resolveRecipient({ accounts: this.accounts, wallets: this.wallets }, sender, input.recipient);
      // A phone or email with no account: a send to it makes a claim link, so it is priced as one (into USDC).
      claim = r.ok || r.reason !== 'unknown_recipient' ? undefined : this.opts.claimContact?.(input.recipient, sender.country ?? undefined);
      if (!r.ok && !claim) return r;
      if (r.ok) recipient = r.recipient;
    }
    const recipientCurrency = recipient ? currencyOf(recipient) : claim ? 'USDC' : (input.to_currency ?? sender.localCurrency);
    let fx;
    try {
      fx = await this.rates.snapshot();
    } catch (e) {
      if (!(e instanceof RatesUnavailable)) throw e;
      return fail(QuoteReason.ratesUnavailable, 'Exchange rates are not available right now; nothing was quoted. Try again shortly.');
    }
    // Named as the caller wrote it (h17tour: an unsupported `to_currency` was blamed on `currency`).
    if (input.to_currency !== undefined && !recipient && !fx.currency(input.to_currency)) {
      return fail('unsupported_currency', `Unsupported currency: ${input.to_currency}. Supported: ${fx.supported().join(', ')}.`, 'to_currency');
    }
    const q = quoteTransfer(fx, { amount: input.amount, currency: input.currency ?? sender.localCurrency, recipientCurrency }, this.opts.feePolicy ?? DEFAULT_FEE_POLICY);
    if (!q.ok) return q;
    const now = this.now();
    const row: Quote = {
      ...callerMark(undefined, meta.livemode),
      id: newId('qt'),
      accountId,
      status: 'open',
      ...(recipient && input.recipient ? { recipientInput: input.recipient, recipientLabel: recipient.label, recipientAddress: recipient.address } : {}),
      ...(claim && input.recipient ? { recipientInput: input.recipient, recipientLabel: `${claim.label} (no account yet: a claim link)` } : {}),
      ...figures(q.quote),
      rateSource: this.rates.name,
      ratesAsOf: fx.table.asOf,
      expiresAt: new Date(now.getTime() + this.ttlMs).toISOString(),
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    return { ok: true, quote: await this.store.write(Quotes, (t) => t.insert(row)) };
  }

  /**
   * Executes a transfer at an open quote's figures: checks it is the caller's, unused, in time
   * and that `input` asks for what it priced, records the transfer from the stored figures
   * (marking the quote used in the same transaction) and confirms it. After `expiresAt` it is
   * refused with `quote_expired`, and the message offers a fresh quote at today's rate.
   */
  async execute(
    accountId: string,
    quoteId: string,
    input: SendTransferInput,
    meta: CallMeta & { spend?: SpendInTx } = {},
  ): Promise<Result<{ transfer: Transfer }, TransferFailure | QuoteFailureReason>> {
    const q = await this.get(accountId, quoteId, meta.livemode !== false);
    if (!q) return fail(QuoteReason.notFound, `No such quote: ${quoteId}.`, 'quote_id');
    if (q.status === 'used') return fail(QuoteReason.used, `Quote ${quoteId} was already used${q.transferId ? ` by transfer ${q.transferId}` : ''}.`, 'quote_id');
    const sender = await this.accounts.get(accountId);
    if (!sender) return fail('account_not_found', 'Your account was not found.');
    const r = await resolveRecipient({ accounts: this.accounts, wallets: this.wallets }, sender, input.recipient);
    if (!r.ok) return r;
    const recipient = r.recipient;
    const mismatch = this.mismatch(q, sender, input, recipient);
    if (mismatch) return fail(QuoteReason.mismatch, `Quote ${quoteId} ${mismatch}; ask for a new quote.`, 'quote_id');
    const now = this.now();
    if (q.status === 'expired' || Date.parse(q.expiresAt) <= now.getTime()) {
      await this.store.write(Quotes, (t) => t.update(q.id, { status: 'expired', updatedAt: nowIso() }, { status: 'open' }));
      return fail(QuoteReason.expired, await this.expiredMessage(q, accountId, { amount: input.amount, currency: q.sourceCurrency, recipient: input.recipient }, meta), 'quote_id');
    }
    const row = buildTransferRow({
      sender,
      fromAddress: this.wallets.addressOf(sender),
      recipient,
      input,
      quote: toTransferQuote(q),
      expiresAt: new Date(q.expiresAt),
      now,
      quoteId: q.id,
      ...(meta.requestId ? { requestId: meta.requestId } : {}),
    });
    const taken = await this.store
      .transaction(async (tx) => {
        const used = await tx.table(Quotes).update(q.id, { status: 'used', transferId: row.id, updatedAt: nowIso() }, { status: 'open' });
        if (!used) return false;
        // The spend policy's reservation in the transaction that writes the transfer (over a cap it
        // aborts it: the quote stays open); the row keeps it, so its end follows the transfer's.
        const spendReservationId = await meta.spend?.reserveIn(tx);
        await tx.table(Transfers).insert({ ...row, ...this.transfers.mark, ...callerMark(undefined, meta.livemode), ...(spendReservationId ? { spendReservationId } : {}) });
        return true;
      })
      .catch((e: unknown) => {
        if (e instanceof StoreConflictError) return false;
        throw e;
      });
    if (!taken) return fail(QuoteReason.used, `Quote ${quoteId} was already used.`, 'quote_id');
    return this.transfers.confirm(accountId, row.id, meta.spend);
  }

  /**
   * A firm quote for a claim link (docs/claims.md, "Price"): a quote into USDC bound to no
   * account (the contact has none). Checks it is the caller's, open, for this amount and in
   * time; the claim marks it used in the transaction that records the claim. Expired: refused
   * with `quote_expired` and a fresh quote offered, nothing moved.
   */
  async forClaim(
    accountId: string,
    quoteId: string,
    input: { amount: string; currency?: string; recipient?: string },
    meta: CallMeta = {},
  ): Promise<Result<{ quote: Quote }, TransferFailure | QuoteFailureReason>> {
    const q = await this.get(accountId, quoteId, meta.livemode !== false);
    if (!q) return fail(QuoteReason.notFound, `No such quote: ${quoteId}.`, 'quote_id');
    if (q.status === 'used') return fail(QuoteReason.used, `Quote ${quoteId} was already used.`, 'quote_id');
    const sender = await this.accounts.get(accountId);
    if (!sender) return fail('account_not_found', 'Your account was not found.');
    const currency = input.currency ?? sender.localCurrency;
    if (currency !== q.sourceCurrency || !sameAmount(input.amount, q.sourceAmount)) {
      return fail(QuoteReason.mismatch, `Quote ${quoteId} is for ${q.sourceAmount} ${q.sourceCurrency}, not ${input.amount} ${currency}; ask for a new quote.`, 'quote_id');
    }
    if (q.recipientAddress || q.recipientCurrency !== 'USDC') return fail(QuoteReason.mismatch, `Quote ${quoteId} prices another recipient; ask for a new quote.`, 'quote_id');
    // A quote made for a claim contact (POST /api/quotes) is that contact's only.
    if (q.recipientInput && input.recipient !== undefined && !this.sameContact(q.recipientInput, input.recipient, sender.country ?? undefined)) {
      return fail(QuoteReason.mismatch, `Quote ${quoteId} is for ${q.recipientLabel ?? 'another recipient'}; ask for a new quote.`, 'quote_id');
    }
    if (q.status === 'expired' || Date.parse(q.expiresAt) <= this.now().getTime()) {
      await this.store.write(Quotes, (t) => t.update(q.id, { status: 'expired', updatedAt: nowIso() }, { status: 'open' }));
      return fail(QuoteReason.expired, await this.expiredMessage(q, accountId, { amount: input.amount, currency: q.sourceCurrency, to_currency: 'USDC' }, meta), 'quote_id');
    }
    return { ok: true, quote: q };
  }

  private sameContact(a: string, b: string, country?: string): boolean {
    const [x, y] = [this.opts.claimContact?.(a, country), this.opts.claimContact?.(b, country)];
    return x && y ? x.contact === y.contact : a.trim().toLowerCase() === b.trim().toLowerCase();
  }

  private mismatch(q: Quote, sender: Account, input: SendTransferInput, recipient: Recipient): string | undefined {
    const currency = input.currency ?? sender.localCurrency;
    if (currency !== q.sourceCurrency || !sameAmount(input.amount, q.sourceAmount)) {
      return `is for ${q.sourceAmount} ${q.sourceCurrency}, not ${input.amount} ${currency}`;
    }
    if (q.recipientAddress && q.recipientAddress.toLowerCase() !== recipient.address.toLowerCase()) {
      return `is for ${q.recipientLabel}, not ${recipient.label}`;
    }
    if (currencyOf(recipient) !== q.recipientCurrency) return `prices ${q.recipientCurrency}, but ${recipient.label} receives ${currencyOf(recipient)}`;
    return undefined;
  }

  /** "That quote expired...; a new one: ..." with a fresh quote (of the caller's mode) when one can be priced. */
  private async expiredMessage(q: Quote, accountId: string, again: CreateQuoteInput, meta: CallMeta): Promise<string> {
    const head = `That quote (${q.id}) expired at ${q.expiresAt.slice(11, 19)} UTC; nothing was sent.`;
    const fresh = await this.create(accountId, again, { livemode: meta.livemode });
    if (!fresh.ok) return `${head} Ask again for a new quote.`;
    const n = fresh.quote;
    return (
      `${head} A new quote at today's rate: ${n.sourceAmount} ${n.sourceCurrency} arrives as ${n.recipientAmount} ${n.recipientCurrency}` +
      `${n.sourceCurrency === n.recipientCurrency ? '' : ` (1 ${n.sourceCurrency} = ${n.rate} ${n.recipientCurrency})`}, fee ${usdcDecimal(n.fee)} USDC; ` +
      `quote ${n.id}, valid until ${n.expiresAt.slice(11, 19)} UTC. Send again to go ahead at this rate.`
    );
  }
}

function currencyOf(r: Recipient): string {
  return r.kind === 'account' ? r.account.localCurrency : 'USDC';
}

function sameAmount(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/^0+(?=\d)/, '').replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  return norm(a) === norm(b);
}

function figures(q: TransferQuote) {
  return {
    sourceCurrency: q.sourceCurrency,
    sourceAmount: q.sourceAmount,
    sourceAmountMinor: q.sourceAmountMinor.toString(),
    stablecoinAmount: q.stablecoinAmount.toString(),
    fee: q.fee.toString(),
    totalDebit: q.totalDebit.toString(),
    recipientCurrency: q.recipientCurrency,
    recipientAmount: q.recipientAmount,
    recipientAmountMinor: q.recipientAmountMinor.toString(),
    rate: q.rate,
    sourceRate: q.sourceRate,
    recipientRate: q.recipientRate,
  };
}

export function toTransferQuote(q: Quote): TransferQuote {
  return {
    sourceCurrency: q.sourceCurrency,
    sourceAmount: q.sourceAmount,
    sourceAmountMinor: BigInt(q.sourceAmountMinor),
    stablecoinAmount: BigInt(q.stablecoinAmount),
    fee: BigInt(q.fee),
    totalDebit: BigInt(q.totalDebit),
    recipientCurrency: q.recipientCurrency,
    recipientAmount: q.recipientAmount,
    recipientAmountMinor: BigInt(q.recipientAmountMinor),
    rate: q.rate,
    sourceRate: q.sourceRate,
    recipientRate: q.recipientRate,
  };
}

/** The API's view (docs/quotes.md): amounts as decimal strings, status with expiry applied. */
export function quoteResource(q: Quote, now: Date = new Date()): QuoteResource {
  const status = q.status === 'open' && Date.parse(q.expiresAt) <= now.getTime() ? 'expired' : q.status;
  return {
    id: q.id,
    object: 'quote',
    status,
    amount: q.sourceAmount,
    currency: q.sourceCurrency,
    recipient: q.recipientLabel ?? null,
    recipient_currency: q.recipientCurrency,
    recipient_amount: q.recipientAmount,
    rate: q.rate,
    source_rate: q.sourceRate,
    recipient_rate: q.recipientRate,
    stablecoin: 'USDC',
    stablecoin_amount: usdcDecimal(q.stablecoinAmount),
    fee: usdcDecimal(q.fee),
    total_debit: usdcDecimal(q.totalDebit),
    rate_source: q.rateSource,
    rates_as_of: q.ratesAsOf,
    expires_at: q.expiresAt,
    created_at: q.createdAt,
    transfer_id: q.transferId ?? null,
  };
}
