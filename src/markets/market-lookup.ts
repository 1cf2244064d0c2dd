import { fail, type Result } from '../lib/results.js';
import { MarketReason, type Market, type MarketDisplayStatus, type MarketFailure, type MarketView } from './market-records.js';
import { looseQuestionMatches, questionMatches } from './match.js';

/** What finding a market answers: the market, or why not (with the candidates when ambiguous). */
export type Found = Result<{ market: Market }, MarketFailure> & { candidates?: MarketView[] };

/**
 * A market by words of its question, among `all` (already the caller's mode's). `stake` looks
 * among markets taking stakes; `manage` among the account's own unresolved markets. An exact
 * question wins over partial matches, a match by the question's own words over one through a
 * translation (market-words.ts); several: ambiguous, with up to five candidates.
 */
export function findByWords(
  all: Market[],
  text: string,
  scope: 'stake' | 'manage',
  accountId: string,
  how: { shown: (m: Market) => MarketDisplayStatus; view: (m: Market) => MarketView },
): Found {
  const strict = all.filter((m) => questionMatches(text, m.question));
  // "la CAN des Lions", "the bbnaija woman thing": no market has every word; one whose question has
  // every word but the connecting and vague ones (and nicknames through their meaning) is the one.
  const matching = strict.length ? strict : all.filter((m) => looseQuestionMatches(text, m.question));
  const inScope =
    scope === 'stake'
      ? matching.filter((m) => how.shown(m) === 'open')
      : matching.filter((m) => m.creatorAccountId === accountId && (m.status === 'open' || m.status === 'resolving' || m.status === 'cancelling'));
  const bare = (q: string) => q.toLowerCase().replace(/[?!.\s]+$/, '');
  const exact = inScope.filter((m) => bare(m.question) === bare(text));
  // "Liga" is the Liga MX question's own word and the Premier League's only in translation: the person's own word wins.
  const literal = exact.length === 1 ? exact : inScope.filter((m) => questionMatches(text, m.question, true));
  const pick = literal.length === 1 ? literal : inScope;
  if (pick.length === 1) return { ok: true, market: pick[0]! };
  if (pick.length > 1) {
    return {
      ...fail(
        MarketReason.ambiguousMarket,
        `"${text}" matches ${pick.length} markets: ${pick.slice(0, 5).map((m) => `"${m.question}" (${m.id})`).join(', ')}. Which one?`,
        'market',
      ),
      candidates: pick.slice(0, 5).map(how.view),
    };
  }
  // Nothing in scope: say why, when the words do match a market.
  const newest = matching[matching.length - 1];
  if (newest) return { ok: true, market: newest };
  return fail(MarketReason.marketNotFound, `I couldn't find a market matching "${text}".`, 'market');
}
