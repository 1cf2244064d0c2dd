import type { AccountsService } from '../../accounts/accounts.js';
import type { FxService } from '../../fx/rates.js';
import type { MarketsService } from '../../markets/markets.js';
import { StakeMarketInput } from '../../markets/market-inputs.js';
import { formatUsdc, usdcDecimal } from '../../lib/money.js';
import { local, shortHash } from '../money-format.js';
import { amountIn, callMeta, callerLivemode, checkInput, defineTool, withPreview, type ToolContext, type ToolOutcome, type ToolPreview, type ToolRun } from './contract.js';
import { failed, stakeResult } from './market-results.js';
import { findPhrase, hasLemma } from '../local/analysis.js';
import { buildStake } from '../local/build-markets.js';
import { amountPoints, backsAWinner, nicknamedMarket, openBets, ownBets, shapesOf, STAKE_VERBS, verblessStake } from '../local/intent-shapes.js';
import { STAKE_CUES } from '../local/lexicon.js';

/** stake_market: the caller's money on one outcome of an open market, held in escrow on-chain. */
export const stakeMarket = defineTool({
  name: 'stake_market',
  input: StakeMarketInput,
  action: 'market',
  description: "Stake the user's own money on one outcome of an open prediction market.",
  movesMoney: true,
  readOnly: false,
  local: {
    scored: {
      rank: 40,
      cues: STAKE_CUES,
      // "on yes" reads as a stake, and so does an amount "on" a market.
      score: (a) => {
        const s = shapesOf(a);
        const onMarket = s.amounts > 0 && (s.marketId || s.marketWord) && findPhrase(a, ['on']) >= 0;
        // "put 2k on Nigeria for the afcon one", "weka 200 kwa ndio kwenye ile ya mvua": a market called by a vague noun.
        const nicknamed = hasLemma(a, 'put', 'place') && nicknamedMarket(a);
        // "put 50 on Arsenal winning the league": the side named by who wins.
        if (hasLemma(a, 'put', 'place', 'back', ...STAKE_VERBS) && backsAWinner(a)) return (s.marketId ? 2 : 0) + amountPoints(s) + 2 * s.onYesNo + 3;
        return (s.marketId ? 2 : 0) + amountPoints(s) + 2 * s.onYesNo + (onMarket || nicknamed ? 3 : 0);
      },
      gate: (a) => {
        const s = shapesOf(a);
        // "put 500 on No", "coloca 50 no Não do Flamengo": an amount put on a yes or no is a stake even without the word "market".
        // "show my stakes" lists the writer's bets (list_markets).
        if (ownBets(a) || openBets(a)) return false;
        if (hasLemma(a, ...STAKE_VERBS) || (hasLemma(a, 'put', 'back', 'place', 'go', 'stake') && s.amounts > 0 && (s.marketId || s.marketWord || s.onYesNo > 0))) return true;
        // "put 2k on Nigeria for the afcon one": a market called by a vague noun after its name.
        if (hasLemma(a, 'put', 'place') && nicknamedMarket(a)) return true;
        if (hasLemma(a, 'put', 'place', 'back') && backsAWinner(a)) return true;
        // Chat shorthand with no verb at all: "3k on Senegal in the afcon market", "I want 1k on Yes, arsenal market".
        return verblessStake(a);
      },
      instruction: 'moves_money',
      build: buildStake,
    },
    wholeReading: true,
  },
  prompt: { group: 'prediction markets' },
  describe: (i, local) => `Stake ${amountIn(i.amount, i.currency, local)} on "${i.outcome}" in the market "${i.market}".`,
  handler: ({ markets, accounts, fx, livemodeOfKey }) => stakeMarketHandler({ markets, accounts, fx, livemodeOfKey }),
});

function stakeMarketHandler({ markets, accounts, fx, livemodeOfKey }: { markets: MarketsService; accounts: AccountsService; fx: FxService; livemodeOfKey?: (keyId: string) => Promise<boolean> }): ToolRun<StakeMarketInput> {
  const stake_market = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(stakeMarket, input);
    if (!checked.ok) return checked;
    // Under a spend policy the reservation is written in the stake's own transaction (spendInAction below).
    const res = await markets.stake(ctx.accountId, checked.input, { ...(await callMeta(ctx, livemodeOfKey)), ...(ctx.spendSlot ? { spend: ctx.spendSlot } : {}) });
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
    const checked = checkInput(stakeMarket, input);
    if (!checked.ok) return checked;
    const account = await accounts.get(ctx.accountId);
    if (!account) return failed({ reason: 'account_not_found', message: 'Your account was not found.' });
    const c = await markets.checkStake(account, checked.input, await callerLivemode(ctx, livemodeOfKey));
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
  return Object.assign(withPreview(stake_market, stake_preview), { spendInAction: true });
}
