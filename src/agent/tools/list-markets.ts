import type { MarketsService } from '../../markets/markets.js';
import { ListMarketsInput } from '../../markets/market-inputs.js';
import { formatUsdc } from '../../lib/money.js';
import { callerLivemode, checkInput, defineTool, type ToolContext, type ToolOutcome, type ToolRun } from './contract.js';
import { hasLemma } from '../local/analysis.js';
import { buildList } from '../local/build-markets.js';
import { MARKET_NOUNS, openBets, ownBets, shapesOf } from '../local/intent-shapes.js';
import { LIST_MARKETS_CUES } from '../local/lexicon.js';

/** list_markets: prediction markets, optionally by status (newest 10 in the summary). */
export const listMarkets = defineTool({
  name: 'list_markets',
  input: ListMarketsInput,
  action: 'market',
  description: 'List prediction markets, optionally by status.',
  movesMoney: false,
  readOnly: true,
  local: {
    scored: {
      rank: 80,
      cues: LIST_MARKETS_CUES,
      // Plural "markets" without an id is about browsing ("show me resolved markets").
      score: (a) => {
        const s = shapesOf(a);
        return (hasLemma(a, 'markets') && !s.marketId ? 3 : 0) + (s.marketId ? -3 : 0) + (s.amounts ? -3 : 0) + (ownBets(a) || openBets(a) ? 4 : 0);
      },
      // "show my stakes", "mes paris": the markets the writer has bet in; "les paris ouverts": the open ones.
      gate: (a) => (hasLemma(a, ...MARKET_NOUNS) || ownBets(a) || openBets(a)) && !shapesOf(a).marketId,
      build: buildList,
    },
  },
  prompt: { group: 'prediction markets' },
  describe: (i) => (i.status ? `List ${i.status} markets.` : 'List markets.'),
  handler: ({ markets, livemodeOfKey }) => listMarketsHandler(markets, livemodeOfKey),
});

function listMarketsHandler(markets: MarketsService, livemodeOfKey?: (keyId: string) => Promise<boolean>): ToolRun<ListMarketsInput> {
  return async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(listMarkets, input);
    if (!checked.ok) return checked;
    const list = await markets.list(checked.input, { livemode: await callerLivemode(ctx, livemodeOfKey) });
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
}
