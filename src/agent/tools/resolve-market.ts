import { matchOutcome } from '../../markets/match.js';
import type { MarketsService } from '../../markets/markets.js';
import { parimutuelPayouts } from '../../markets/parimutuel.js';
import { ResolveMarketInput } from '../../markets/market-inputs.js';
import { formatUsdc } from '../../lib/money.js';
import { callMeta, callerLivemode, checkInput, defineTool, withPreview, type ToolContext, type ToolOutcome, type ToolPreview, type ToolRun } from './contract.js';
import { failed, reportResult, settleSummary } from './market-results.js';
import { buildResolve } from '../local/build-markets.js';
import { shapesOf } from '../local/intent-shapes.js';
import { RESOLVE_CUES } from '../local/lexicon.js';

/** resolve_market: the creator names the winning outcome; the pool is paid out pro rata from escrow. */
export const resolveMarket = defineTool({
  name: 'resolve_market',
  input: ResolveMarketInput,
  action: 'market',
  description: 'Resolve a market the user created by naming the winning outcome; the pool is paid out pro rata.',
  movesMoney: true,
  readOnly: false,
  local: {
    scored: {
      rank: 50,
      cues: RESOLVE_CUES,
      // "as yes" / "is no" reads as a resolution; an amount reads as something else.
      score: (a) => {
        const s = shapesOf(a);
        return (s.marketId ? 2 : 0) + (s.amounts ? -2 : 0) + s.asYesNo;
      },
      gate: (a) => shapesOf(a).marketId || shapesOf(a).marketWord || a.tokens.some((t) => t.norm === 'resolve'),
      instruction: 'takes_amount',
      build: buildResolve,
    },
    wholeReading: true,
  },
  prompt: { group: 'prediction markets' },
  describe: (i) => `Resolve the market "${i.market}" with "${i.outcome}" as the winning outcome and pay out the pool.`,
  handler: ({ markets, livemodeOfKey }) => resolveMarketHandler(markets, livemodeOfKey),
});

function resolveMarketHandler(markets: MarketsService, livemodeOfKey?: (keyId: string) => Promise<boolean>): ToolRun<ResolveMarketInput> {
  const resolve_market = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(resolveMarket, input);
    if (!checked.ok) return checked;
    const res = await markets.resolve(ctx.accountId, checked.input, await callMeta(ctx, livemodeOfKey));
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
    const checked = checkInput(resolveMarket, input);
    if (!checked.ok) return checked;
    const found = await markets.find(checked.input.market, 'manage', ctx.accountId, await callerLivemode(ctx, livemodeOfKey));
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
  return withPreview(resolve_market, resolve_preview);
}
