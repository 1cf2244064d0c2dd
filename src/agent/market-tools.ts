import type { AccountsService } from '../accounts/accounts.js';
import type { FxService } from '../fx/rates.js';
import { matchOutcome } from '../markets/match.js';
import type { Market, MarketsService, PayoutReport, Stake } from '../markets/markets.js';
import { parimutuelPayouts } from '../markets/parimutuel.js';
import type { ToolName } from './tool-inputs.js';
import { local, shortHash } from './money-format.js';
import { formatUsdc, usdcDecimal } from '../lib/money.js';
import { validateInput, withPreview, type ToolContext, type ToolHandler, type ToolOutcome, type ToolPreview } from './tools.js';

/** The market tools over MarketsService (create, stake, resolve, cancel, list). */

type Failure = Extract<ToolOutcome, { ok: false }>;
const failed = (r: { reason: string; message: string }): Failure => ({ ok: false, action: 'market', reason: r.reason, message: r.message });

export interface MarketToolDeps {
  markets: MarketsService;
  accounts: AccountsService;
  fx: FxService;
}

function stakeResult(fx: FxService, s: Stake, m: Market, escrow: string): Record<string, unknown> {
  return {
    id: s.id,
    market_id: m.id,
    question: m.question,
    outcome: s.outcomeLabel,
    status: s.status,
    amount: s.localAmount,
    currency: s.currency,
    amount_text: local(fx, s.localAmountMinor, s.currency),
    stablecoin: 'USDC',
    stablecoin_amount: usdcDecimal(s.amount),
    stablecoin_amount_base_units: s.amount,
    rate: s.rate,
    fee: '0',
    tx_hash: s.txHash ?? null,
    escrow_address: escrow,
  };
}

function reportResult(r: PayoutReport) {
  return {
    paid: r.paid,
    unpaid: r.unpaid,
    total_paid_out: usdcDecimal(r.total),
    total_paid_out_base_units: r.total.toString(),
    payouts: r.payouts.map((p) => ({ ...p, amount: usdcDecimal(p.amount), amount_base_units: p.amount.toString() })),
  };
}

export function marketHandlers(deps: MarketToolDeps): Pick<
  { [N in ToolName]: ToolHandler<N> },
  'create_market' | 'stake_market' | 'resolve_market' | 'cancel_market' | 'list_markets'
> {
  const { markets, accounts, fx } = deps;

  const create_market = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = validateInput('create_market', input);
    if (!checked.ok) return checked;
    const res = await markets.create(ctx.accountId, checked.input);
    if (!res.ok) return failed(res);
    const m = res.market;
    return {
      ok: true,
      action: 'market',
      result: { ...markets.view(m), operation: 'create' },
      summary: `Created the market "${m.question}" (${m.id}) with outcomes ${m.outcomes.join(' / ')}; staking closes ${m.closesAt}. Stakes are held in escrow at ${markets.escrowAddress(m)}.`,
    };
  };

  const stake_market = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = validateInput('stake_market', input);
    if (!checked.ok) return checked;
    const res = await markets.stake(ctx.accountId, checked.input);
    if (!res.ok) return failed(res);
    const { stake: s, market: m } = res;
    const escrow = markets.escrowAddress(m);
    const what = `${local(fx, s.localAmountMinor, s.currency)} (${formatUsdc(s.amount)} at ${s.rate} ${s.currency}/USDC) on "${s.outcomeLabel}" in "${m.question}"`;
    const summary =
      s.status === 'settled'
        ? `Staked ${what}. Held in escrow (tx ${shortHash(s.txHash!)}); the pool is now ${formatUsdc(m.totalPool)}.`
        : `Submitted a stake of ${what}. Waiting for the network to confirm; nothing will be moved twice.`;
    return { ok: true, action: 'market', result: { ...stakeResult(fx, s, m, escrow), operation: 'stake', market: markets.view(m) }, summary };
  };
  const stake_preview = async (input: unknown, ctx: ToolContext): Promise<ToolPreview> => {
    const checked = validateInput('stake_market', input);
    if (!checked.ok) return checked;
    const account = await accounts.get(ctx.accountId);
    if (!account) return failed({ reason: 'account_not_found', message: 'Your account was not found.' });
    const c = await markets.checkStake(account, checked.input);
    if (!c.ok) return failed(c);
    const label = c.market.outcomes[c.outcome]!;
    return {
      ok: true,
      description: `Stake ${local(fx, c.conversion.amountMinor, c.conversion.currency)} (${formatUsdc(c.amount)} at ${c.conversion.rate} ${c.conversion.currency}/USDC) on "${label}" in "${c.market.question}" (${c.market.id}); staking closes ${c.market.closesAt}.`,
      details: {
        market_id: c.market.id, outcome: label, amount: c.conversion.amount, currency: c.conversion.currency, stablecoin_amount: usdcDecimal(c.amount), rate: c.conversion.rate,
        // The description's own phrases, for the person's language (local/pending-descriptions-i18n.ts).
        amount_text: local(fx, c.conversion.amountMinor, c.conversion.currency), question: c.market.question, closes_at: c.market.closesAt,
      },
    };
  };

  const settleSummary = (verb: string, m: Market, r: PayoutReport) =>
    `${verb} ${formatUsdc(r.total)} paid from escrow to ${r.paid} stake${r.paid === 1 ? '' : 's'}` +
    (r.unpaid ? `; ${r.unpaid} payout${r.unpaid === 1 ? ' is' : 's are'} still being confirmed and will be retried` : '') +
    `. Pool ${formatUsdc(m.totalPool)}.`;

  const resolve_market = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = validateInput('resolve_market', input);
    if (!checked.ok) return checked;
    const res = await markets.resolve(ctx.accountId, checked.input);
    if (!res.ok) return failed(res);
    const { market: m, report } = res;
    const winner = m.outcomes[m.winningOutcome!]!;
    return {
      ok: true,
      action: 'market',
      result: { ...markets.view(m), operation: 'resolve', ...reportResult(report) },
      summary: settleSummary(`Resolved "${m.question}" as "${winner}".`, m, report),
    };
  };
  const resolve_preview = async (input: unknown, ctx: ToolContext): Promise<ToolPreview> => {
    const checked = validateInput('resolve_market', input);
    if (!checked.ok) return checked;
    const found = await markets.find(checked.input.market, 'manage', ctx.accountId);
    if (!found.ok) return failed(found);
    const m = found.market;
    if (m.creatorAccountId !== ctx.accountId) return failed({ reason: 'not_creator', message: 'Only the creator of this market can resolve it.' });
    const o = matchOutcome(m.outcomes, checked.input.outcome);
    if (o === undefined) return failed({ reason: 'invalid_outcome', message: `"${checked.input.outcome}" is not an outcome of this market; choose ${m.outcomes.join(' or ')}.` });
    const stakes = (await markets.stakes(m.id)).filter((s) => s.status === 'settled');
    const payouts = parimutuelPayouts(stakes.map((s) => ({ id: s.id, outcome: s.outcome, amount: BigInt(s.amount) })), o);
    const winners = payouts.filter((p) => p.kind === 'win').length;
    const how = winners ? `pay the ${formatUsdc(m.totalPool)} pool to ${winners} winning stake${winners === 1 ? '' : 's'} pro rata` : `refund all ${stakes.length} stakes (nobody backed "${m.outcomes[o]}")`;
    const said = { question: m.question, winning_stakes: winners, stakes: stakes.length, pool_text: formatUsdc(m.totalPool) };
    return { ok: true, description: `Resolve "${m.question}" (${m.id}) as "${m.outcomes[o]}" and ${how}.`, details: { market_id: m.id, outcome: m.outcomes[o], ...said } };
  };

  const cancel_market = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = validateInput('cancel_market', input);
    if (!checked.ok) return checked;
    const res = await markets.cancel(ctx.accountId, checked.input);
    if (!res.ok) return failed(res);
    const { market: m, report } = res;
    return {
      ok: true,
      action: 'market',
      result: { ...markets.view(m), operation: 'cancel', ...reportResult(report) },
      summary: settleSummary(`Cancelled "${m.question}"; refunds:`, m, report),
    };
  };
  const cancel_preview = async (input: unknown, ctx: ToolContext): Promise<ToolPreview> => {
    const checked = validateInput('cancel_market', input);
    if (!checked.ok) return checked;
    const found = await markets.find(checked.input.market, 'manage', ctx.accountId);
    if (!found.ok) return failed(found);
    const m = found.market;
    if (m.creatorAccountId !== ctx.accountId) return failed({ reason: 'not_creator', message: 'Only the creator of this market can cancel it.' });
    return { ok: true, description: `Cancel "${m.question}" (${m.id}) and refund all ${m.stakeCount} stakes (${formatUsdc(m.totalPool)}).`, details: { market_id: m.id, question: m.question, stakes: m.stakeCount, pool_text: formatUsdc(m.totalPool) } };
  };

  const list_markets = async (input: unknown): Promise<ToolOutcome> => {
    const checked = validateInput('list_markets', input);
    if (!checked.ok) return checked;
    const list = await markets.list(checked.input);
    const views = list.map((m) => markets.view(m));
    const lines = views.slice(0, 10).map((v) => `• ${v.question} (${v.id}) — ${v.status}, pool ${formatUsdc(v.total_pool_base_units)}, ${v.outcomes.map((o) => o.label).join(' / ')}`);
    const label = checked.input.status ? `${checked.input.status} markets` : 'markets';
    return {
      ok: true,
      action: 'market',
      result: { operation: 'list', status: checked.input.status ?? null, markets: views },
      summary: views.length
        ? `${views.length} ${views.length === 1 ? label.replace(/s$/, '') : label}${views.length > 10 ? ' (newest 10 shown)' : ''}:\n${lines.join('\n')}`
        : `There are no ${label}.`,
    };
  };

  return {
    create_market,
    stake_market: withPreview<'stake_market'>(stake_market, stake_preview),
    resolve_market: withPreview<'resolve_market'>(resolve_market, resolve_preview),
    cancel_market: withPreview<'cancel_market'>(cancel_market, cancel_preview),
    list_markets,
  };
}
