import type { ToolOutcome } from '../tool-calls.js';
import type { SeenMarket } from './index.js';

/**
 * The markets (id and question) a successful read outcome showed in this turn (list_markets' list,
 * a created market): a later money-moving call may name one by the id it looked up, and grounding
 * still checks that its question shares a naming word with the person's words.
 */
export function marketsShown(outcome: ToolOutcome): SeenMarket[] {
  if (!outcome.ok || outcome.action !== 'market' || !outcome.result || typeof outcome.result !== 'object') return [];
  const r = outcome.result as { markets?: unknown; id?: unknown; question?: unknown };
  const list = Array.isArray(r.markets) ? r.markets : [r];
  return list.flatMap((m: { id?: unknown; question?: unknown }) =>
    typeof m?.id === 'string' && m.id.startsWith('mkt_') && typeof m.question === 'string' ? [{ id: m.id, question: m.question }] : [],
  );
}
