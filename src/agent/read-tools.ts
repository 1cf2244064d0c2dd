import type { AccountsService } from '../accounts/accounts.js';
import type { BillsService } from '../bills/bills.js';
import type { FxService } from '../fx/rates.js';
import type { MarketsService } from '../markets/markets.js';
import type { PaymentsService } from '../payments/payments.js';
import { quoteTransfer } from '../transfers/quote.js';
import type { TransfersService } from '../transfers/transfers.js';
import { toTransferQuote, type Quote, type QuotesService } from '../quotes/quotes.js';
import { mask, type ClaimsService } from '../claims/claims.js';
import { local } from './money-format.js';
import { formatUsdc, usdcDecimal } from '../lib/money.js';
import { ToolFailureReason, validateInput, type ToolContext, type ToolHandler, type ToolOutcome } from './tools.js';

/**
 * The read-only tools: quote_transfer (what a transfer would deliver, nothing recorded or
 * moved) and list_activity (the caller's own recent transfers, bills, stakes and payment
 * links). Both act only for ctx.accountId.
 */

export interface ReadToolDeps {
  accounts: AccountsService;
  fx: FxService;
  payments: PaymentsService;
  transfers?: TransfersService;
  bills?: BillsService;
  markets?: MarketsService;
  /** Firm quotes: quote_transfer records one (with an id and an expiry) when present. */
  quotes?: QuotesService;
  /** Claim links sent and received. */
  claims?: ClaimsService;
}

type Failure = Extract<ToolOutcome, { ok: false }>;

export function quoteTransferHandler(deps: ReadToolDeps): ToolHandler<'quote_transfer'> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = validateInput('quote_transfer', input);
    if (!checked.ok) return checked;
    const i = checked.input;
    const account = await deps.accounts.get(ctx.accountId);
    if (!account) return { ok: false, action: 'quote', reason: ToolFailureReason.not_allowed, message: 'Your account could not be found.' };
    const currency = i.currency ?? account.localCurrency;
    let to: string;
    let q;
    let firm: Quote | undefined;
    if (deps.quotes) {
      // A firm quote (docs/quotes.md): its id executes exactly these figures until it expires.
      const made = await deps.quotes.create(ctx.accountId, { amount: i.amount, currency, ...(i.recipient ? { recipient: i.recipient } : {}), ...(i.to_currency ? { to_currency: i.to_currency } : {}) });
      if (!made.ok) return { ok: false, action: 'quote', reason: made.reason, message: made.message } satisfies Failure;
      firm = made.quote;
      q = toTransferQuote(firm);
      to = firm.recipientLabel ?? firm.recipientCurrency;
    } else if (i.recipient && deps.transfers) {
      const p = await deps.transfers.preview(ctx.accountId, { recipient: i.recipient, amount: i.amount, currency });
      if (!p.ok) return { ok: false, action: 'quote', reason: p.reason, message: p.message } satisfies Failure;
      q = p.preview.quote;
      to = p.preview.recipient.label;
    } else {
      const target = i.to_currency ?? account.localCurrency;
      const r = quoteTransfer(deps.fx, { amount: i.amount, currency, recipientCurrency: target });
      if (!r.ok) return { ok: false, action: 'quote', reason: r.reason, message: r.message } satisfies Failure;
      q = r.quote;
      to = target;
    }
    const sent = local(deps.fx, q.sourceAmountMinor, q.sourceCurrency);
    const got = local(deps.fx, q.recipientAmountMinor, q.recipientCurrency);
    const fee = q.fee > 0n ? `; fee ${formatUsdc(q.fee)} (total ${formatUsdc(q.totalDebit)} from your wallet)` : '; no fee';
    const rate = q.sourceCurrency === q.recipientCurrency ? '' : ` at 1 ${q.sourceCurrency} = ${q.rate} ${q.recipientCurrency}`;
    return {
      ok: true,
      action: 'quote',
      result: {
        amount: q.sourceAmount,
        currency: q.sourceCurrency,
        to,
        recipient_amount: q.recipientAmount,
        recipient_currency: q.recipientCurrency,
        rate: q.rate,
        stablecoin_amount: usdcDecimal(q.stablecoinAmount),
        fee: usdcDecimal(q.fee),
        total_debit: usdcDecimal(q.totalDebit),
        moved: false,
        ...(firm ? { quote_id: firm.id, expires_at: firm.expiresAt } : {}),
      },
      summary: `Quote (nothing sent): ${sent} to ${to} arrives as ${got}${rate}${fee}.${firm ? ` Held until ${firm.expiresAt.slice(11, 19)} UTC (quote ${firm.id}).` : ''}`,
    };
  };
}

type Entry = { kind: 'transfer' | 'bill' | 'stake' | 'payment'; id: string; at: string; text: string; status: string };

export function listActivityHandler(deps: ReadToolDeps): ToolHandler<'list_activity'> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = validateInput('list_activity', input);
    if (!checked.ok) return checked;
    const { kind, limit = 10 } = checked.input;
    const want = (k: Entry['kind']) => !kind || kind === k;
    const entries: Entry[] = [];
    const fmt = (minor: string, currency: string) => local(deps.fx, minor, currency);
    if (want('transfer') && deps.transfers) {
      for (const t of await deps.transfers.history(ctx.accountId, { limit })) {
        const out = t.accountId === ctx.accountId;
        entries.push({
          kind: 'transfer',
          id: t.id,
          at: t.createdAt,
          status: t.status,
          text: out ? `Sent ${fmt(t.sourceAmountMinor, t.sourceCurrency)} to ${t.recipientLabel}` : `Received ${fmt(t.recipientAmountMinor, t.recipientCurrency)}`,
        });
      }
    }
    if (want('transfer') && deps.claims) {
      // Claim links (docs/claims.md): the sender sees each step, the claimant what they received.
      for (const c of await deps.claims.history(ctx.accountId, limit)) {
        const out = c.senderAccountId === ctx.accountId;
        entries.push({
          kind: 'transfer',
          id: c.id,
          at: c.createdAt,
          status: c.status,
          text: out ? `Sent ${fmt(c.sourceAmountMinor, c.sourceCurrency)} to ${mask(c)} by claim link` : `Received ${formatUsdc(c.amount)} from ${c.senderName} (claim link)`,
        });
      }
    }
    if (want('bill') && deps.bills) {
      for (const b of await deps.bills.history(ctx.accountId, { limit })) {
        entries.push({ kind: 'bill', id: b.id, at: b.createdAt, status: b.status, text: `Paid ${fmt(b.amountMinor, b.currency)} to ${b.billerName} (${b.accountNumber})` });
      }
    }
    if (want('stake') && deps.markets) {
      for (const s of await deps.markets.stakesOf(ctx.accountId, limit)) {
        entries.push({ kind: 'stake', id: s.id, at: s.createdAt, status: s.status, text: `Staked ${fmt(s.localAmountMinor, s.currency)} on "${s.outcomeLabel}"` });
      }
    }
    if (want('payment')) {
      const listed = await deps.payments.list(ctx.accountId, { limit });
      if (listed.ok) {
        for (const p of listed.data) entries.push({ kind: 'payment', id: p.id, at: p.createdAt, status: p.status, text: `Payment link ${p.amount} ${p.currency}${p.description ? ` (${p.description})` : ''}` });
      }
    }
    entries.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
    const shown = entries.slice(0, limit);
    return {
      ok: true,
      action: 'activity',
      result: { entries: shown, count: shown.length },
      summary: shown.length
        ? `Your recent activity:\n${shown.map((e) => `• ${e.at.slice(0, 10)} ${e.text} — ${e.status}`).join('\n')}`
        : 'You have no activity yet.',
    };
  };
}
