import type { AccountsService } from '../accounts/accounts.js';
import type { BillPayment, BillsService } from '../bills/bills.js';
import { formatMeterToken } from '../bills/sandbox-provider.js';
import type { Wallets } from '../wallet/wallets.js';
import type { FxService } from '../fx/rates.js';
import type { Transfer, TransfersService } from '../transfers/transfers.js';
import type { SendTransferInput } from '../transfers/schemas.js';
import { toTransferQuote, type Quote, type QuotesService } from '../quotes/quotes.js';
import type { Result } from '../lib/results.js';
import { claimTarget, previewClaim, sendAsClaim, type ClaimToolDeps } from './claim-tools.js';
import type { WalletSummary } from '../wallet/balance.js';
import { local, shortHash } from './money-format.js';
import { formatUsdc, usdcDecimal } from '../lib/money.js';
import { ToolFailureReason, validateInput, withPreview, type ToolContext, type ToolHandler, type ToolOutcome, type ToolPreview } from './tools.js';

/**
 * send_transfer, pay_bill and get_balance over the domain modules. Each handler
 * re-validates its input and acts only for ctx.accountId; summaries state both amounts
 * and the rate exactly as recorded.
 */

type Failure = Extract<ToolOutcome, { ok: false }>;
const failed = (action: Failure['action'], r: { reason: string; message: string }): Failure => ({
  ok: false,
  action,
  reason: r.reason,
  message: r.message,
});

// ------------------------------------------------------------------------ transfers

export function transferResult(fx: FxService, t: Transfer): Record<string, unknown> {
  return {
    id: t.id,
    status: t.status,
    recipient: t.recipientLabel,
    recipient_type: t.recipientKind,
    recipient_account_id: t.recipientAccountId ?? null,
    to_address: t.toAddress,
    amount: t.sourceAmount,
    currency: t.sourceCurrency,
    amount_text: local(fx, t.sourceAmountMinor, t.sourceCurrency),
    stablecoin: 'USDC',
    stablecoin_amount: usdcDecimal(t.stablecoinAmount),
    stablecoin_amount_base_units: t.stablecoinAmount,
    fee: usdcDecimal(t.fee),
    fee_base_units: t.fee,
    total_debit: usdcDecimal(t.totalDebit),
    total_debit_base_units: t.totalDebit,
    recipient_amount: t.recipientAmount,
    recipient_currency: t.recipientCurrency,
    recipient_amount_text: local(fx, t.recipientAmountMinor, t.recipientCurrency),
    rate: t.rate,
    rate_text: rateText(t.sourceCurrency, t.recipientCurrency, t.rate),
    source_rate: t.sourceRate,
    recipient_rate: t.recipientRate,
    tx_hash: t.txHash ?? null,
    fee_status: t.feeStatus,
    fee_tx_hash: t.feeTxHash ?? null,
    note: t.note ?? null,
    quote_id: t.quoteId ?? null,
    quote_expires_at: t.quoteExpiresAt,
    created_at: t.createdAt,
    settled_at: t.settledAt ?? null,
  };
}

function rateText(from: string, to: string, rate: string): string {
  return `1 ${from} = ${rate} ${to}`;
}

/** "at 1 KES = 11.95744681 NGN (129.25 KES/USDC)", or nothing to convert when both sides match. */
function rateClause(t: { sourceCurrency: string; recipientCurrency: string; rate: string; sourceRate: string }): string {
  if (t.sourceCurrency === t.recipientCurrency) {
    return t.sourceCurrency === 'USDC' ? '' : ` at ${t.sourceRate} ${t.sourceCurrency}/USDC`;
  }
  return ` at ${rateText(t.sourceCurrency, t.recipientCurrency, t.rate)} (${t.sourceRate} ${t.sourceCurrency}/USDC)`;
}

function transferSentence(
  fx: FxService,
  t: Pick<Transfer, 'sourceAmountMinor' | 'sourceCurrency' | 'recipientAmountMinor' | 'recipientCurrency' | 'stablecoinAmount' | 'fee' | 'rate' | 'recipientLabel' | 'sourceRate'>,
): string {
  const sent = local(fx, t.sourceAmountMinor, t.sourceCurrency);
  const received = local(fx, t.recipientAmountMinor, t.recipientCurrency);
  const fee = BigInt(t.fee) > 0n ? `; fee ${formatUsdc(t.fee)}` : '; no fee';
  return `${sent} to ${t.recipientLabel}, who receives ${received}. ${formatUsdc(t.stablecoinAmount)} on-chain${rateClause(t)}${fee}`;
}

export function sendTransferHandler(deps: { transfers: TransfersService; fx: FxService; quotes?: QuotesService; claims?: ClaimToolDeps }): ToolHandler<'send_transfer'> {
  const { transfers, fx } = deps;
  const run = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = validateInput('send_transfer', input);
    if (!checked.ok) return checked;
    const meta = ctx.requestId ? { requestId: ctx.requestId } : {};
    // With a firm quote: exactly its figures, or a refusal (expired: a new quote is offered).
    const quoteId = checked.input.quote_id;
    if (quoteId && !deps.quotes) return { ok: false, action: 'transfer', reason: 'not_available', message: 'Firm quotes are not available.' };
    const res = quoteId && deps.quotes ? await deps.quotes.execute(ctx.accountId, quoteId, checked.input, meta) : await transfers.send(ctx.accountId, checked.input, meta);
    if (!res.ok) {
      // A phone or email with no account: a claim link instead (docs/claims.md).
      const target = deps.claims && (await claimTarget(deps.claims, ctx, checked.input, res.reason));
      if (deps.claims && target) return sendAsClaim(deps.claims, ctx, checked.input);
      return failed('transfer', res);
    }
    const t = res.transfer;
    const sentence = transferSentence(fx, t);
    const summary =
      t.status === 'settled'
        ? `Sent ${sentence}. Settled on-chain (tx ${shortHash(t.txHash!)}).`
        : `Submitted ${sentence}. Waiting for the network to confirm${t.txHash ? ` (tx ${shortHash(t.txHash)})` : ''}; it is safe, nothing will be sent twice.`;
    return { ok: true, action: 'transfer', result: transferResult(fx, t), summary };
  };
  const preview = async (input: unknown, ctx: ToolContext): Promise<ToolPreview> => {
    const checked = validateInput('send_transfer', input);
    if (!checked.ok) return checked;
    const p = await transfers.preview(ctx.accountId, checked.input);
    if (!p.ok) {
      const target = deps.claims && (await claimTarget(deps.claims, ctx, checked.input, p.reason));
      if (deps.claims && target) return previewClaim(deps.claims, ctx, checked.input, target);
      return failed('transfer', p);
    }
    const { recipient } = p.preview;
    // The figures shown are a firm quote the confirm executes exactly (docs/quotes.md).
    const firm = deps.quotes ? await firmQuote(deps.quotes, ctx.accountId, checked.input) : undefined;
    if (firm && !firm.ok) return failed('transfer', firm);
    const q = firm ? toTransferQuote(firm.quote) : p.preview.quote;
    const held = firm ? ` This rate is held until ${firm.quote.expiresAt.slice(11, 19)} UTC (quote ${firm.quote.id}).` : '';
    const who = recipient.kind === 'account' && recipient.label !== recipient.account.name ? `${recipient.label} (${recipient.account.name})` : recipient.label;
    const description =
      `Send ${local(fx, q.sourceAmountMinor, q.sourceCurrency)} to ${who}: they receive ${local(fx, q.recipientAmountMinor, q.recipientCurrency)}. ` +
      `${formatUsdc(q.stablecoinAmount)} moves on-chain${rateClause(q)}` +
      `${q.fee > 0n ? ` plus a ${formatUsdc(q.fee)} fee (total ${formatUsdc(q.totalDebit)})` : ' with no fee'}.${held}`;
    return {
      ok: true,
      description,
      details: {
        recipient: recipient.label,
        amount: q.sourceAmount,
        currency: q.sourceCurrency,
        recipient_amount: q.recipientAmount,
        recipient_currency: q.recipientCurrency,
        stablecoin_amount: usdcDecimal(q.stablecoinAmount),
        fee: usdcDecimal(q.fee),
        total_debit: usdcDecimal(q.totalDebit),
        rate: q.rate,
        ...(firm ? { quote_id: firm.quote.id, quote_expires_at: firm.quote.expiresAt } : {}),
        // The description's own phrases, so it can be said in the person's language (local/pending-descriptions-i18n.ts).
        amount_text: local(fx, q.sourceAmountMinor, q.sourceCurrency),
        recipient_amount_text: local(fx, q.recipientAmountMinor, q.recipientCurrency),
        rate_text: rateClause(q).replace(/^ at /, ''),
      },
      ...(firm ? { input: { ...checked.input, quote_id: firm.quote.id } } : {}),
    };
  };
  return withPreview<'send_transfer'>(run, preview);
}

/** The quote a preview shows: the one named (still the caller's), or a new one. */
async function firmQuote(quotes: QuotesService, accountId: string, input: SendTransferInput): Promise<Result<{ quote: Quote }>> {
  if (input.quote_id) {
    const named = await quotes.get(accountId, input.quote_id);
    return named ? { ok: true, quote: named } : { ok: false, reason: 'quote_not_found', message: `No such quote: ${input.quote_id}.` };
  }
  return quotes.create(accountId, { amount: input.amount, recipient: input.recipient, ...(input.currency ? { currency: input.currency } : {}) });
}

// ------------------------------------------------------------------------ bills

export function billResult(fx: FxService, b: BillPayment): Record<string, unknown> {
  return {
    id: b.id,
    status: b.status,
    biller_id: b.billerId,
    biller: b.billerName,
    category: b.category,
    account_number: b.accountNumber,
    customer_name: b.customerName,
    amount: b.amount,
    currency: b.currency,
    amount_text: local(fx, b.amountMinor, b.currency),
    stablecoin: 'USDC',
    stablecoin_amount: usdcDecimal(b.stablecoinAmount),
    stablecoin_amount_base_units: b.stablecoinAmount,
    rate: b.rate,
    fee: '0',
    tx_hash: b.txHash ?? null,
    receipt_number: b.receipt?.receiptNumber ?? null,
    token: b.receipt?.token ?? null,
    units: b.receipt?.units ?? null,
    unit_label: b.receipt?.unitLabel ?? null,
    refund_tx_hash: b.refundTxHash ?? null,
    created_at: b.createdAt,
    completed_at: b.completedAt ?? null,
  };
}

export function payBillHandler(deps: { bills: BillsService; fx: FxService }): ToolHandler<'pay_bill'> {
  const { bills, fx } = deps;
  const run = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = validateInput('pay_bill', input);
    if (!checked.ok) return checked;
    const res = await bills.pay(ctx.accountId, checked.input, ctx.requestId ? { requestId: ctx.requestId } : {});
    if (!res.ok) return failed('bill', res);
    const b = res.bill;
    const what = `${local(fx, b.amountMinor, b.currency)} to ${b.billerName} for ${b.accountNumber} (${b.customerName}): ${formatUsdc(b.stablecoinAmount)} at ${b.rate} ${b.currency}/USDC`;
    let summary: string;
    if (b.status === 'completed') {
      const r = b.receipt!;
      const token = r.token ? ` Token: ${formatMeterToken(r.token)}${r.units ? ` (${r.units} ${r.unitLabel ?? 'kWh'})` : ''}.` : '';
      summary = `Paid ${what}. Receipt ${r.receiptNumber}.${token} Tx ${shortHash(b.txHash!)}.`;
    } else if (b.status === 'paid') {
      summary = `Paid ${what} (tx ${shortHash(b.txHash!)}). ${b.billerName} has not issued the receipt yet; it will follow.`;
    } else {
      summary = `Submitted ${what}. Waiting for the network to confirm; nothing will be paid twice.`;
    }
    return { ok: true, action: 'bill', result: billResult(fx, b), summary };
  };
  const preview = async (input: unknown, ctx: ToolContext): Promise<ToolPreview> => {
    const checked = validateInput('pay_bill', input);
    if (!checked.ok) return checked;
    const q = await bills.quote(ctx.accountId, checked.input);
    if (!q.ok) return failed('bill', q);
    const b = q.quote;
    return {
      ok: true,
      description:
        `Pay ${local(fx, b.amountMinor, b.biller.currency)} to ${b.biller.name} for ${b.biller.account.label.toLowerCase()} ${b.accountNumber} ` +
        `(${b.customerName}): ${formatUsdc(b.stablecoinAmount)} at ${b.rate} ${b.biller.currency}/USDC, no fee.`,
      details: {
        biller: b.biller.name,
        account_number: b.accountNumber,
        customer_name: b.customerName,
        amount: b.amount,
        currency: b.biller.currency,
        stablecoin_amount: usdcDecimal(b.stablecoinAmount),
        rate: b.rate,
        amount_text: local(fx, b.amountMinor, b.biller.currency),
        account_label: b.biller.account.label.toLowerCase(),
      },
    };
  };
  return withPreview<'pay_bill'>(run, preview);
}

// ------------------------------------------------------------------------ balance

export function getBalanceHandler(deps: { wallets: Pick<Wallets, 'summary'>; fx: FxService; accounts: AccountsService }): ToolHandler<'get_balance'> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = validateInput('get_balance', input);
    if (!checked.ok) return checked;
    const account = await deps.accounts.get(ctx.accountId);
    if (!account) return { ok: false, action: 'balance', reason: ToolFailureReason.not_allowed, message: 'Your account could not be found.' };
    let w: WalletSummary;
    try {
      w = await deps.wallets.summary(account);
    } catch {
      return { ok: false, action: 'balance', reason: 'chain_unavailable', message: 'The network is not reachable right now; try again shortly.' };
    }
    const inLocal = deps.fx.fromStablecoin(BigInt(w.balance_base_units), w.currency);
    const localText = inLocal.ok ? local(deps.fx, inLocal.minor, w.currency) : null;
    return {
      ok: true,
      action: 'balance',
      result: { ...w, stablecoin: 'USDC' },
      summary: `Your balance is ${formatUsdc(w.balance_base_units)}${localText ? ` (${localText} at ${w.rate} ${w.currency}/USDC)` : ''}.`,
    };
  };
}
