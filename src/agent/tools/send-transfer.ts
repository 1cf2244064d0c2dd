import type { FxService } from '../../fx/rates.js';
import type { Transfer, TransfersService } from '../../transfers/transfers.js';
import { SendTransferInput } from '../../transfers/transfer-inputs.js';
import { toTransferQuote, type Quote, type QuotesService } from '../../quotes/quotes.js';
import type { Result } from '../../lib/results.js';
import { formatUsdc, usdcDecimal } from '../../lib/money.js';
import { claimTarget, previewClaim, sendAsClaim, type ClaimToolDeps } from '../claim-tools.js';
import { local, shortHash } from '../money-format.js';
import type { CallMeta } from '../../lib/livemode.js';
import { amountIn, callMeta, checkInput, defineTool, withPreview, type ToolContext, type ToolFailure, type ToolOutcome, type ToolPreview, type ToolRun } from './contract.js';
import { hasLemma } from '../local/analysis.js';
import { buildTransfer } from '../local/build-transfer.js';
import { amountPoints, shapesOf, TRANSFER_VERBS } from '../local/intent-shapes.js';
import { TRANSFER_CUES } from '../local/lexicon.js';
import { detectQuote } from '../local/read-intents.js';
import { FEES_ANSWER } from '../local/replies-i18n.js';

/**
 * send_transfer: money from the caller's wallet to a person, with an FX quote (a firm one when
 * quotes are wired), or into a claim link for a phone or email with no account (claim-tools.ts).
 * Summaries state both amounts and the rate exactly as recorded.
 */
export const sendTransfer = defineTool({
  name: 'send_transfer',
  input: SendTransferInput,
  action: 'transfer',
  description:
    "Send money from the user's own wallet to someone else (stablecoin transfer with an FX quote). Use when the user asks to send, pay or transfer money to a person.",
  movesMoney: true,
  readOnly: false,
  local: {
    scored: {
      rank: 10,
      cues: TRANSFER_CUES,
      // A @handle (not a phone: that may be a bill's account) says "transfer"; a market word says not.
      score: (a) => {
        const s = shapesOf(a);
        return (s.nonPhoneRecipients ? 4 : s.recipients.length ? 2 : 0) + (s.recipientAfterTo ? 1 : 0) + (s.marketWord ? -2 : 0) + amountPoints(s);
      },
      gate: (a) => hasLemma(a, ...TRANSFER_VERBS) || shapesOf(a).recipients.length > 0,
      instruction: 'moves_money',
      // "what would @x get if I send 5k?": a quote, else the fee rule.
      onQuestion: (a) => detectQuote(a, true) ?? { reply: FEES_ANSWER[a.lang], reason: 'question' },
      build: buildTransfer,
    },
    wholeReading: true,
  },
  prompt: {
    line: "send money from the user's own wallet to a person (Telegram @username, E.164 phone, email, account id or 0x address), in the user's local currency or a named one; the service quotes FX and settles on-chain in the stablecoin.",
  },
  describe: (i, local) => `Send ${amountIn(i.amount, i.currency, local)} to ${i.recipient}${i.note ? ` with the note "${i.note}"` : ''}.`,
  handler: (deps) =>
    sendTransferHandler({
      transfers: deps.transfers,
      fx: deps.fx,
      ...(deps.livemodeOfKey ? { livemodeOfKey: deps.livemodeOfKey } : {}),
      ...(deps.quotes ? { quotes: deps.quotes } : {}),
      ...(deps.claims
        ? { claims: { claims: deps.claims, fx: deps.fx, publicUrl: deps.publicUrl, ...(deps.quotes ? { quotes: deps.quotes } : {}), country: async (id: string) => (await deps.accounts.get(id))?.country, ...(deps.livemodeOfKey ? { livemodeOfKey: deps.livemodeOfKey } : {}) } }
        : {}),
    }),
});

const failed = (r: { reason: string; message: string }): ToolFailure => ({ ok: false, action: 'transfer', reason: r.reason, message: r.message });

function transferResult(fx: FxService, t: Transfer): Record<string, unknown> {
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

function sendTransferHandler(deps: {
  transfers: TransfersService;
  fx: FxService;
  quotes?: QuotesService;
  claims?: ClaimToolDeps;
  livemodeOfKey?: (keyId: string) => Promise<boolean>;
}): ToolRun<SendTransferInput> {
  const { transfers, fx } = deps;
  const run = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(sendTransfer, input);
    if (!checked.ok) return checked;
    const meta = await callMeta(ctx, deps.livemodeOfKey);
    // Under a spend policy (spendInAction below): a plain send writes the reservation in the
    // transaction that holds the money; a path that cannot reserves on its own first.
    const slot = ctx.spendSlot;
    // With a firm quote: exactly its figures, or a refusal (expired: a new quote is offered).
    const quoteId = checked.input.quote_id;
    if (quoteId && !deps.quotes) return { ok: false, action: 'transfer', reason: 'not_available', message: 'Firm quotes are not available.' };
    const spend = slot ? { spend: slot } : {};
    const res =
      quoteId && deps.quotes ? await deps.quotes.execute(ctx.accountId, quoteId, checked.input, { ...meta, ...spend }) : await transfers.send(ctx.accountId, checked.input, { ...meta, ...spend, ...(ctx.reads ? { reads: ctx.reads } : {}) });
    if (!res.ok) {
      // A phone or email with no account: a claim link instead (docs/claims.md). Nothing was
      // reserved for the failed send, with or without a firm quote (no account: it failed before its transaction).
      const target = deps.claims && (await claimTarget(deps.claims, ctx, checked.input, res.reason));
      // The claim writes the spend reservation in its own transaction (ctx.spendSlot), as the send does.
      if (deps.claims && target) return sendAsClaim(deps.claims, ctx, checked.input);
      return failed(res);
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
    const checked = checkInput(sendTransfer, input);
    if (!checked.ok) return checked;
    const p = await transfers.preview(ctx.accountId, checked.input, ctx.reads);
    if (!p.ok) {
      const target = deps.claims && (await claimTarget(deps.claims, ctx, checked.input, p.reason));
      if (deps.claims && target) return previewClaim(deps.claims, ctx, checked.input, target);
      return failed(p);
    }
    const { recipient } = p.preview;
    // The figures shown are a firm quote the confirm executes exactly (docs/quotes.md).
    const firm = deps.quotes ? await firmQuote(deps.quotes, ctx.accountId, checked.input, await callMeta(ctx, deps.livemodeOfKey)) : undefined;
    if (firm && !firm.ok) return failed(firm);
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
  return Object.assign(withPreview(run, preview), { spendInAction: true });
}

/** The quote a preview shows: the one named (still the caller's), or a new one. */
async function firmQuote(quotes: QuotesService, accountId: string, input: SendTransferInput, meta: CallMeta): Promise<Result<{ quote: Quote }>> {
  if (input.quote_id) {
    const named = await quotes.get(accountId, input.quote_id, meta.livemode !== false);
    return named ? { ok: true, quote: named } : { ok: false, reason: 'quote_not_found', message: `No such quote: ${input.quote_id}.` };
  }
  return quotes.create(accountId, { amount: input.amount, recipient: input.recipient, ...(input.currency ? { currency: input.currency } : {}) }, meta);
}

