import { describe, expect, it } from 'vitest';
import { findByWords } from '../../src/markets/market-lookup.js';
import type { Market } from '../../src/markets/market-records.js';

/** Issue h7: a reference that matches one question by its own words and another only through a translation. */
const market = (id: string, question: string, outcomes: string[]): Market => ({
  id,
  seq: 0,
  escrowIndex: 0,
  creatorAccountId: 'acct_c',
  question,
  outcomes,
  closesAt: '2027-01-01T00:00:00Z',
  status: 'open',
  pools: outcomes.map(() => '0'),
  totalPool: '0',
  stakeCount: 0,
  createdAt: '2026-11-01T00:00:00Z',
  updatedAt: '2026-11-01T00:00:00Z',
});
const how = { shown: () => 'open' as const, view: (m: Market) => ({ id: m.id }) as never };
const all = [
  market('mkt_epl', 'Will Arsenal win the Premier League this season?', ['Yes', 'No']),
  market('mkt_lmx', '¿El América gana la Liga MX este torneo?', ['Sí', 'No']),
  market('mkt_ligue', 'Le PSG va-t-il gagner la Ligue 1 ?', ['Oui', 'Non']),
  market('mkt_rain', 'Will it rain in Nairobi on Saturday?', ['Yes', 'No']),
];
const found = (text: string) => {
  const r = findByWords(all, text, 'stake', 'acct_x', how);
  return r.ok ? r.market.id : r.reason;
};

describe('finding a market by words: the person\'s own word over a translation', () => {
  it('a word the question holds as written wins over the same meaning in another question', () => {
    expect(found('Liga')).toBe('mkt_lmx');
    expect(found('Ligue')).toBe('mkt_ligue');
    expect(found('league')).toBe('mkt_epl');
  });

  it('a translation alone still finds its one question, and two translations stay ambiguous', () => {
    expect(found('mvua Nairobi')).toBe('mkt_rain');
    // "ligi" is no question's own word: all three leagues match through the map.
    expect(found('ligi')).toBe('ambiguous_market');
  });
});
