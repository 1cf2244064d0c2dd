import { CreatePaymentInput } from '../../payments/payment-schemas.js';
import { usdcDecimal } from '../../lib/money.js';
import { CreatePaymentLinkInput } from '../../wallet/wallet-tool-inputs.js';
import { ToolFailureReason, amountIn, callerLivemode, checkInput, defineTool, type ToolContext, type ToolDeps, type ToolOutcome, type ToolRun } from './contract.js';
import { findPhrase, hasLemma, type Analysis } from '../local/analysis.js';
import { buildPaymentLink } from '../local/build-payment-link.js';
import { amountPoints, LINK_NOUNS, shapesOf } from '../local/intent-shapes.js';
import { PAYMENT_LINK_CUES } from '../local/lexicon.js';

/** Payment links made from chat live as long as a default checkout session. */
export const PAYMENT_LINK_MINUTES = 60;

/**
 * create_payment_link: a hosted checkout payment through the payments module, in the caller's
 * local currency unless one is named, returning to `${publicUrl}/app`. Moves no money by itself.
 */
export const createPaymentLink = defineTool({
  name: 'create_payment_link',
  input: CreatePaymentLinkInput,
  action: 'payment',
  description: 'Create a hosted checkout link through which someone else can pay the user. Moves no money by itself.',
  movesMoney: false,
  readOnly: false,
  local: {
    scored: {
      rank: 30,
      cues: PAYMENT_LINK_CUES,
      score: (a) => {
        const s = shapesOf(a);
        // Words of a market's question are its content, not cues: "crea un mercado: ¿ganará el América la Liga MX?".
        const linkInQuestion = s.colon >= 0 && a.lemmas.slice(s.colon + 2).includes('link') && !a.lemmas.slice(0, s.colon).includes('link');
        return amountPoints(s) + (linkInQuestion ? -4 : 0) + (requestsPayment(a) ? 5 : 0);
      },
      gate: (a) =>
        hasLemma(a, ...LINK_NOUNS) || requestsPayment(a) || findPhrase(a, ['payment', 'request']) >= 0 || findPhrase(a, ['request', 'payment']) >= 0 || findPhrase(a, ['request', 'money']) >= 0,
      instruction: 'takes_amount',
      build: buildPaymentLink,
    },
  },
  prompt: { line: 'a hosted checkout link through which someone else pays the user.' },
  describe: (i, local) => `Create a payment link for ${amountIn(i.amount, i.currency, local)}${i.description ? ` ("${i.description}")` : ''}.`,
  handler: (deps) => createPaymentLinkHandler(deps),
});

function createPaymentLinkHandler(deps: Pick<ToolDeps, 'accounts' | 'payments' | 'fx' | 'publicUrl' | 'livemodeOfKey'>): ToolRun<CreatePaymentLinkInput> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(createPaymentLink, input);
    if (!checked.ok) return checked;
    const i = checked.input;
    const account = await deps.accounts.get(ctx.accountId);
    if (!account) return { ok: false, action: 'payment', reason: ToolFailureReason.not_allowed, message: 'Your account could not be found.' };
    const currency = i.currency ?? account.localCurrency;
    const parsed = CreatePaymentInput.safeParse({
      amount: Number(i.amount),
      currency,
      redirect_url: `${deps.publicUrl}/app`,
      ...(i.description ? { description: i.description } : {}),
      merchant_name: account.name,
      expires_in_minutes: PAYMENT_LINK_MINUTES,
    });
    if (!parsed.success) {
      return { ok: false, action: 'payment', reason: ToolFailureReason.invalid_amount, message: parsed.error.issues[0]?.message ?? 'Invalid payment link.' };
    }
    const livemode = await callerLivemode(ctx, deps.livemodeOfKey);
    const created = await deps.payments.create(ctx.accountId, parsed.data, undefined, livemode);
    if (!created.ok) {
      const reason = created.reason === 'unsupported_currency' ? ToolFailureReason.unsupported_currency : ToolFailureReason.invalid_amount;
      return { ok: false, action: 'payment', reason, message: created.message };
    }
    const p = created.payment;
    const url = deps.payments.checkoutUrl(p.id);
    const stablecoin = usdcDecimal(p.stablecoinAmount);
    const parsedAmount = deps.fx.parseAmount(p.amount, p.currency);
    const shown = parsedAmount.ok ? deps.fx.format(parsedAmount.minor, p.currency) : `${p.amount} ${p.currency}`;
    return {
      ok: true,
      action: 'payment',
      result: {
        id: p.id,
        status: p.status,
        amount: Number(p.amount),
        currency: p.currency,
        amount_text: shown,
        stablecoin_amount: stablecoin,
        rate: p.rate,
        checkout_url: url,
        description: p.description ?? null,
        expires_at: p.expiresAt,
      },
      summary: `Payment link for ${shown} (${stablecoin} USDC at ${p.rate} ${p.currency}/USDC): ${url} (valid for ${PAYMENT_LINK_MINUTES} minutes).`,
    };
  };
}

/** "request 2000 KES payment for rent": a request for a payment is a payment link. */
function requestsPayment(a: Analysis): boolean {
  return hasLemma(a, 'request') && hasLemma(a, 'payment', 'money', 'pay', 'paid');
}
