import type { MarketsService } from '../../markets/markets.js';
import { CancelMarketInput } from '../../markets/market-inputs.js';
import { formatUsdc } from '../../lib/money.js';
import { callMeta, callerLivemode, checkInput, defineTool, withPreview, type ToolContext, type ToolOutcome, type ToolPreview, type ToolRun } from './contract.js';
import { failed, reportResult, settleSummary } from './market-results.js';
import { buildCancel } from '../local/build-markets.js';
import { shapesOf } from '../local/intent-shapes.js';
import { CANCEL_MARKET_CUES } from '../local/lexicon.js';

/** cancel_market: the creator cancels the market; every stake is refunded from escrow. */
export const cancelMarket = defineTool({
  name: 'cancel_market',
  input: CancelMarketInput,
  action: 'market',
  description: 'Cancel a market the user created; all stakes are refunded.',
  movesMoney: true,
  readOnly: false,
  local: {
    scored: {
      rank: 60,
      cues: CANCEL_MARKET_CUES,
      score: (a) => {
        const s = shapesOf(a);
        return (s.marketId ? 2 : 0) + (s.amounts ? -2 : 0);
      },
      gate: (a) => shapesOf(a).marketId || shapesOf(a).marketWord,
      instruction: 'takes_amount',
      build: buildCancel,
    },
    wholeReading: true,
  },
  prompt: { group: 'prediction markets' },
  describe: (i) => `Cancel the market "${i.market}" and refund every stake.`,
  handler: ({ markets, livemodeOfKey }) => cancelMarketHandler(markets, livemodeOfKey),
});

function cancelMarketHandler(markets: MarketsService, livemodeOfKey?: (keyId: string) => Promise<boolean>): ToolRun<CancelMarketInput> {
  const cancel_market = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(cancelMarket, input);
    if (!checked.ok) return checked;
    const res = await markets.cancel(ctx.accountId, checked.input, await callMeta(ctx, livemodeOfKey));
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
    const checked = checkInput(cancelMarket, input);
    if (!checked.ok) return checked;
    const found = await markets.find(checked.input.market, 'manage', ctx.accountId, await callerLivemode(ctx, livemodeOfKey));
    if (!found.ok) return failed(found);
    const m = found.market;
    if (m.creatorAccountId !== ctx.accountId) return failed({ reason: 'not_creator', message: 'Only the creator of this market can cancel it.' });
    return { ok: true, description: `Cancel "${m.question}" (${m.id}) and refund all ${m.stakeCount} stakes (${formatUsdc(m.totalPool)}).`, details: { market_id: m.id, question: m.question, stakes: m.stakeCount, pool_text: formatUsdc(m.totalPool) } };
  };
  return withPreview(cancel_market, cancel_preview);
}
