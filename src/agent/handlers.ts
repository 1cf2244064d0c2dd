import type { AccountsService } from '../accounts/accounts.js';
import type { PaymentsService } from '../payments/payments.js';
import { CreatePaymentInput } from '../payments/schemas.js';
import type { FxService } from '../fx/rates.js';
import { usdcDecimal } from '../lib/money.js';
import type { ToolName } from './tool-inputs.js';
import type { Wallets } from '../wallet/wallets.js';
import type { TransfersService } from '../transfers/transfers.js';
import type { BillsService } from '../bills/bills.js';
import type { MarketsService } from '../markets/markets.js';
import type { QuotesService } from '../quotes/quotes.js';
import type { ClaimsService } from '../claims/claims.js';
import { getBalanceHandler, payBillHandler, sendTransferHandler } from './money-tools.js';
import { marketHandlers } from './market-tools.js';
import { listActivityHandler, quoteTransferHandler } from './read-tools.js';
import { TOOL_ACTIONS, ToolFailureReason, validateInput, type ToolContext, type ToolHandler, type ToolHandlers, type ToolOutcome } from './tools.js';

export interface ToolHandlerDeps {
  accounts: AccountsService;
  payments: PaymentsService;
  fx: FxService;
  /** The app's public base URL (payment links send the payer back to `${publicUrl}/app`). */
  publicUrl: string;
  /** Money modules; a tool whose module is absent answers `not_available`. */
  wallets?: Pick<Wallets, 'summary'>;
  transfers?: TransfersService;
  bills?: BillsService;
  markets?: MarketsService;
  /** Firm quotes (docs/quotes.md): quote_transfer and transfer previews lock their figures. */
  quotes?: QuotesService;
  /** Claim links: a transfer to a phone or email with no account is held for them (docs/claims.md). */
  claims?: ClaimsService;
  /** The mode of the key a call came through: a test key's payment link is a test-mode payment (docs/test-mode.md). */
  livemodeOfKey?: (keyId: string) => Promise<boolean>;
}

/** Payment links made from chat live as long as a default checkout session. */
export const PAYMENT_LINK_MINUTES = 60;

function notAvailable(name: ToolName, what: string): ToolHandler<ToolName> {
  return async (input: unknown) => {
    const checked = validateInput(name, input);
    if (!checked.ok) return checked;
    return {
      ok: false,
      action: TOOL_ACTIONS[name],
      reason: ToolFailureReason.not_available,
      message: `${what} is not available yet.`,
    };
  };
}

/**
 * The tools' executors. Each re-validates its input and acts only for `ctx.accountId`.
 * create_payment_link goes through the payments module; the money tools through their
 * modules (money-tools.ts, market-tools.ts) when the composition root provides them.
 */
export function createToolHandlers(deps: ToolHandlerDeps): ToolHandlers {
  const create_payment_link: ToolHandler<'create_payment_link'> = async (input, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = validateInput('create_payment_link', input);
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
    const livemode = ctx.keyId && deps.livemodeOfKey ? await deps.livemodeOfKey(ctx.keyId) : true;
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

  const readDeps = {
    accounts: deps.accounts,
    fx: deps.fx,
    payments: deps.payments,
    ...(deps.transfers ? { transfers: deps.transfers } : {}),
    ...(deps.bills ? { bills: deps.bills } : {}),
    ...(deps.markets ? { markets: deps.markets } : {}),
    ...(deps.quotes ? { quotes: deps.quotes } : {}),
    ...(deps.claims ? { claims: deps.claims } : {}),
  };
  return {
    create_payment_link,
    quote_transfer: quoteTransferHandler(readDeps),
    list_activity: listActivityHandler(readDeps),
    send_transfer: deps.transfers
      ? sendTransferHandler({
          transfers: deps.transfers,
          fx: deps.fx,
          ...(deps.quotes ? { quotes: deps.quotes } : {}),
          ...(deps.claims
            ? { claims: { claims: deps.claims, fx: deps.fx, publicUrl: deps.publicUrl, ...(deps.quotes ? { quotes: deps.quotes } : {}), country: async (id: string) => (await deps.accounts.get(id))?.country } }
            : {}),
        })
      : (notAvailable('send_transfer', 'Sending money') as ToolHandler<'send_transfer'>),
    pay_bill: deps.bills
      ? payBillHandler({ bills: deps.bills, fx: deps.fx })
      : (notAvailable('pay_bill', 'Paying bills') as ToolHandler<'pay_bill'>),
    ...(deps.markets
      ? marketHandlers({ markets: deps.markets, accounts: deps.accounts, fx: deps.fx })
      : {
          create_market: notAvailable('create_market', 'Creating markets') as ToolHandler<'create_market'>,
          stake_market: notAvailable('stake_market', 'Staking on markets') as ToolHandler<'stake_market'>,
          resolve_market: notAvailable('resolve_market', 'Resolving markets') as ToolHandler<'resolve_market'>,
          cancel_market: notAvailable('cancel_market', 'Cancelling markets') as ToolHandler<'cancel_market'>,
          list_markets: notAvailable('list_markets', 'Listing markets') as ToolHandler<'list_markets'>,
        }),
    get_balance: deps.wallets
      ? getBalanceHandler({ wallets: deps.wallets, fx: deps.fx, accounts: deps.accounts })
      : (notAvailable('get_balance', 'Checking your balance') as ToolHandler<'get_balance'>),
  };
}
