import { quoteTransfer as quoteFx } from '../../transfers/quote.js';
import { QuoteTransferInput } from '../../transfers/transfer-inputs.js';
import { toTransferQuote, type Quote } from '../../quotes/quotes.js';
import { formatUsdc, usdcDecimal } from '../../lib/money.js';
import { local } from '../money-format.js';
import { ToolFailureReason, amountIn, callMeta, checkInput, defineTool, type ToolContext, type ToolDeps, type ToolFailure, type ToolOutcome, type ToolRun } from './contract.js';
import { detectQuote } from '../local/read-intents.js';

/**
 * quote_transfer: what a transfer would deliver (a firm quote with an id and an expiry when
 * quotes are wired); nothing recorded as a transfer, nothing moved. Acts only for ctx.accountId.
 */
export const quoteTransfer = defineTool({
  name: 'quote_transfer',
  input: QuoteTransferInput,
  action: 'quote',
  description:
    'Quote a transfer without sending: what the recipient gets, the rate and the fee. Also answers "how much is 100 USD in NGN". Moves no money; use it for questions about amounts, rates or fees.',
  movesMoney: false,
  readOnly: true,
  local: {
    // "how much is 100 USD in NGN", "what does @x get if I send 5k": never scored, so a question about money never reads as a send.
    detect: {
      rank: 30,
      run: (a) => {
        const draft = detectQuote(a);
        return draft && 'call' in draft ? { kind: 'tool', call: draft.call } : undefined;
      },
    },
  },
  prompt: { forQuestions: true },
  describe: (i, local) => `Quote ${amountIn(i.amount, i.currency, local)}${i.recipient ? ` to ${i.recipient}` : i.to_currency ? ` in ${i.to_currency}` : ''}.`,
  handler: (deps) => quoteTransferHandler(deps),
});

function quoteTransferHandler(deps: ToolDeps): ToolRun<QuoteTransferInput> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(quoteTransfer, input);
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
      const made = await deps.quotes.create(ctx.accountId, { amount: i.amount, currency, ...(i.recipient ? { recipient: i.recipient } : {}), ...(i.to_currency ? { to_currency: i.to_currency } : {}) }, await callMeta(ctx, deps.livemodeOfKey));
      if (!made.ok) return { ok: false, action: 'quote', reason: made.reason, message: made.message } satisfies ToolFailure;
      firm = made.quote;
      q = toTransferQuote(firm);
      to = firm.recipientLabel ?? firm.recipientCurrency;
    } else if (i.recipient && deps.transfers) {
      const p = await deps.transfers.preview(ctx.accountId, { recipient: i.recipient, amount: i.amount, currency });
      if (!p.ok) return { ok: false, action: 'quote', reason: p.reason, message: p.message } satisfies ToolFailure;
      q = p.preview.quote;
      to = p.preview.recipient.label;
    } else {
      const target = i.to_currency ?? account.localCurrency;
      const r = quoteFx(deps.fx, { amount: i.amount, currency, recipientCurrency: target });
      if (!r.ok) return { ok: false, action: 'quote', reason: r.reason, message: r.message } satisfies ToolFailure;
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
