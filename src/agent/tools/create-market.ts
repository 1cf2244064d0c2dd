import { CreateMarketInput } from '../../markets/market-inputs.js';
import type { MarketsService } from '../../markets/markets.js';
import { checkInput, defineTool, type ToolContext, type ToolOutcome, type ToolRun } from './contract.js';
import { failed } from './market-results.js';

/** create_market: a prediction market owned by the caller; moves no money. */
export const createMarket = defineTool({
  name: 'create_market',
  input: CreateMarketInput,
  action: 'market',
  description: 'Create a prediction market owned by the user, with a question, 2-10 outcomes and a close time. Creating a market moves no money.',
  movesMoney: false,
  readOnly: false,
  prompt: { group: 'prediction markets' },
  describe: (i) => `Create the market "${i.question}" with outcomes ${(i.outcomes ?? ['Yes', 'No']).join(' / ')}, closing ${i.closes_at}.`,
  handler: ({ markets }) => createMarketHandler(markets),
});

function createMarketHandler(markets: MarketsService): ToolRun<CreateMarketInput> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(createMarket, input);
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
}
