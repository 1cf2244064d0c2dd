import { CreateMarketInput } from '../../markets/market-inputs.js';
import type { MarketsService } from '../../markets/markets.js';
import { callMeta, checkInput, defineTool, type ToolContext, type ToolOutcome, type ToolRun } from './contract.js';
import { failed } from './market-results.js';
import { findPhrase, hasLemma } from '../local/analysis.js';
import { buildCreateMarket } from '../local/build-markets.js';
import { QUESTION_STARTS, shapesOf } from '../local/intent-shapes.js';
import { CREATE_MARKET_CUES } from '../local/lexicon.js';

/** create_market: a prediction market owned by the caller; moves no money. */
export const createMarket = defineTool({
  name: 'create_market',
  input: CreateMarketInput,
  action: 'market',
  description: 'Create a prediction market owned by the user, with a question, 2-10 outcomes and a close time. Creating a market moves no money.',
  movesMoney: false,
  readOnly: false,
  local: {
    scored: {
      rank: 70,
      cues: CREATE_MARKET_CUES,
      score: (a) => {
        const s = shapesOf(a);
        // A quoted question after the market words: 'new market "Uulan ba sa Manila bukas?"'.
        const marketAt = a.lemmas.findIndex((l) => l === 'market' || l === 'poll' || l === 'prediction');
        const quoted = marketAt >= 0 && a.tokens.slice(marketAt + 1).some((t) => t.text === '"' || t.text === '“');
        // "market: will it rain?": what follows the colon, or any question, is the market's question.
        const question = a.tokens.some((t) => t.text === '?') && a.lemmas.some((l) => QUESTION_STARTS.has(l));
        return (s.marketId ? -4 : 0) + (s.colon >= 0 ? 2 : 0) + (quoted ? 3 : 0) + (question ? 2 : 0);
      },
      gate: (a) => hasLemma(a, 'market', 'poll', 'prediction') || findPhrase(a, ['bet', 'market']) >= 0,
      build: buildCreateMarket,
    },
  },
  prompt: { group: 'prediction markets' },
  describe: (i) => `Create the market "${i.question}" with outcomes ${(i.outcomes ?? ['Yes', 'No']).join(' / ')}, closing ${i.closes_at}.`,
  handler: ({ markets, livemodeOfKey }) => createMarketHandler(markets, livemodeOfKey),
});

function createMarketHandler(markets: MarketsService, livemodeOfKey?: (keyId: string) => Promise<boolean>): ToolRun<CreateMarketInput> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(createMarket, input);
    if (!checked.ok) return checked;
    // A test key's market is a test market, also on the embedded chain both modes share.
    const res = await markets.create(ctx.accountId, checked.input, await callMeta(ctx, livemodeOfKey));
    if (!res.ok) return failed(res);
    const m = res.market;
    return {
      ok: true,
      action: 'market',
      result: { ...markets.view(m), operation: 'create' },
      summary: `Created the market "${m.question}" (${m.id}) with outcomes ${m.outcomes.join(' / ')}; staking closes ${m.closesAt}. Stakes are held in escrow at ${markets.escrowAddress(m)}.`,
    };
  };
}
