import { claimContact, mask, type ClaimsService } from '../claims/claims.js';
import type { FxService } from '../fx/rates.js';
import { toTransferQuote, type QuotesService } from '../quotes/quotes.js';
import { formatUsdc, usdcDecimal } from '../lib/money.js';
import { quoteTransfer } from '../transfers/quote.js';
import type { SendTransferInput } from '../transfers/transfer-inputs.js';
import { local } from './money-format.js';
import { callerLivemode, type ToolContext, type ToolOutcome, type ToolPreview } from './tools/contract.js';

/**
 * send_transfer to a phone or email with no account (docs/claims.md): instead of
 * `unknown_recipient`, the money goes into a claim held by the service and the sender gets a
 * claim link, shown once. Used by every door through the send_transfer handler.
 */
export interface ClaimToolDeps {
  claims: ClaimsService;
  fx: FxService;
  publicUrl: string;
  /** Firm quotes: a claim's preview pins one and its confirm is priced from it (docs/claims.md). */
  quotes?: QuotesService;
  country?: (accountId: string) => Promise<string | undefined>;
  /** The key's mode: a test key's claim is a test-mode claim (docs/test-mode.md). */
  livemodeOfKey?: (keyId: string) => Promise<boolean>;
}

/** The contact to hold a claim for, when the failure was "nobody with that phone/email". */
export async function claimTarget(deps: ClaimToolDeps, ctx: ToolContext, input: SendTransferInput, reason: string) {
  if (reason !== 'unknown_recipient' || (input.quote_id && !deps.quotes)) return undefined;
  return claimContact(input.recipient, await deps.country?.(ctx.accountId));
}

export async function sendAsClaim(deps: ClaimToolDeps, ctx: ToolContext, input: SendTransferInput): Promise<ToolOutcome> {
  // A pinned firm quote (the preview's): exactly its figures, or quote_expired and nothing moves.
  const livemode = await callerLivemode(ctx, deps.livemodeOfKey);
  const firm = input.quote_id && deps.quotes ? await deps.quotes.forClaim(ctx.accountId, input.quote_id, input, { livemode }) : undefined;
  if (firm && !firm.ok) return { ok: false, action: 'transfer', reason: firm.reason, message: firm.message };
  const made = await deps.claims.create(ctx.accountId, {
    livemode,
    contact: input.recipient,
    amount: input.amount,
    ...(input.currency ? { currency: input.currency } : {}),
    ...(input.note ? { note: input.note } : {}),
    ...(firm ? { quote: firm.quote } : {}),
    // Under a spend policy: the reservation in the claim's own transaction.
    ...(ctx.spendSlot ? { spend: ctx.spendSlot } : {}),
  });
  if (!made.ok) return { ok: false, action: 'transfer', reason: made.reason, message: made.message };
  const c = made.claim;
  const url = `${deps.publicUrl}/claim/${made.token}`;
  const sent = local(deps.fx, c.sourceAmountMinor, c.sourceCurrency);
  const until = c.expiresAt.slice(0, 10);
  const state = c.status === 'open' ? 'is held for them' : 'is on its way into a claim for them';
  return {
    ok: true,
    action: 'transfer',
    result: {
      id: c.id,
      type: 'claim',
      status: c.status,
      recipient: mask(c),
      amount: c.sourceAmount,
      currency: c.sourceCurrency,
      // The summary's own phrases, for the reply in the person's language (outcome-replies-i18n.ts).
      amount_text: sent,
      stablecoin_amount_base_units: c.amount.toString(),
      stablecoin_amount: usdcDecimal(c.amount),
      fee: usdcDecimal(c.fee),
      total_debit: usdcDecimal(c.total),
      claim_url: url,
      expires_at: c.expiresAt,
      tx_hash: c.fundTxHash ?? null,
    },
    summary:
      `${mask(c)} has no account yet, so ${sent} (${formatUsdc(c.amount)}) ${state} until ${until}. ` +
      `Send them this link (shown only once): ${url} . They sign up or sign in with ${c.contactKind === 'phone' ? 'that phone number' : 'that email'} to receive it. ` +
      `You can cancel until it is claimed; if you cancel or nobody claims it, ${formatUsdc(c.amount)} comes back to you and our fee is kept.`,
  };
}

export async function previewClaim(deps: ClaimToolDeps, ctx: ToolContext, input: SendTransferInput, target: { kind: 'phone' | 'email'; contact: string }): Promise<ToolPreview> {
  const currency = input.currency ?? ctx.localCurrency ?? 'USD';
  // With firm quotes: the figures shown are a quote into USDC the confirm executes exactly.
  const meta = { livemode: await callerLivemode(ctx, deps.livemodeOfKey) };
  const firm = deps.quotes
    ? input.quote_id
      ? await deps.quotes.forClaim(ctx.accountId, input.quote_id, { amount: input.amount, currency, recipient: input.recipient }, meta)
      : await deps.quotes.create(ctx.accountId, { amount: input.amount, currency, to_currency: 'USDC' }, meta)
    : undefined;
  if (firm && !firm.ok) return { ok: false, action: 'transfer', reason: firm.reason, message: firm.message };
  const q = firm ? { ok: true as const, quote: toTransferQuote(firm.quote) } : quoteTransfer(deps.fx, { amount: input.amount, currency, recipientCurrency: 'USDC' });
  if (!q.ok) return { ok: false, action: 'transfer', reason: q.reason, message: q.message };
  const who = mask({ contactKind: target.kind, contact: target.contact });
  const held = firm ? ` This rate is held until ${firm.quote.expiresAt.slice(11, 19)} UTC (quote ${firm.quote.id}).` : '';
  return {
    ok: true,
    description:
      `Send ${local(deps.fx, q.quote.sourceAmountMinor, q.quote.sourceCurrency)} to ${who}, who has no account yet: ${formatUsdc(q.quote.stablecoinAmount)} ` +
      `plus a ${formatUsdc(q.quote.fee)} fee (total ${formatUsdc(q.quote.totalDebit)}) leaves your wallet into a claim held for them, and you get a link to send them. ` +
      `If it is not claimed in time (or you cancel), ${formatUsdc(q.quote.stablecoinAmount)} comes back to you and our ${formatUsdc(q.quote.fee)} fee is kept.${held}`,
    details: {
      recipient: who,
      claim: true,
      amount: q.quote.sourceAmount,
      currency: q.quote.sourceCurrency,
      stablecoin_amount: usdcDecimal(q.quote.stablecoinAmount),
      fee: usdcDecimal(q.quote.fee),
      total_debit: usdcDecimal(q.quote.totalDebit),
      amount_text: local(deps.fx, q.quote.sourceAmountMinor, q.quote.sourceCurrency),
      ...(firm ? { rate: firm.quote.rate, quote_id: firm.quote.id, quote_expires_at: firm.quote.expiresAt } : {}),
    },
    ...(firm ? { input: { ...input, quote_id: firm.quote.id } } : {}),
  };
}

/** A claim link's token is shown once: outcomes are stored (pending actions) with it masked. */
export function withoutClaimTokens<T>(outcome: T): T {
  return JSON.parse(JSON.stringify(outcome).replace(/\/claim\/[0-9A-Za-z]{32}/g, '/claim/(link shown once)')) as T;
}
