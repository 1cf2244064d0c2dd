import { describe, expect, it } from 'vitest';
import { findByWords } from '../../src/markets/market-lookup.js';
import type { Market } from '../../src/markets/market-records.js';
import { matchOutcome } from '../../src/markets/match.js';

/**
 * Issue h12: corridor-8 staked on markets named only by a nickname or with the words people put
 * around a market's name ("la CAN des Lions", "the bbnaija woman thing", "laban ng Gilas vs Japan",
 * "lo de las Águilas", "Mengão campeão"): every one was "market not found". Other markets and
 * other words than the eval's here.
 */
const market = (id: string, question: string, outcomes: string[]): Market => ({
  id, seq: 0, escrowIndex: 0, creatorAccountId: 'acct_c', question, outcomes, closesAt: '2027-01-01T00:00:00Z', status: 'open',
  pools: outcomes.map(() => '0'), totalPool: '0', stakeCount: 0, createdAt: '2026-11-01T00:00:00Z', updatedAt: '2026-11-01T00:00:00Z',
});
const how = { shown: () => 'open' as const, view: (m: Market) => ({ id: m.id }) as never };
const all = [
  market('mkt_nga', 'Will Nigeria beat Ghana in the friendly?', ['Nigeria', 'Ghana']),
  market('mkt_gunners', 'Will Arsenal win the FA Cup?', ['Yes', 'No']),
  market('mkt_sen', 'Le Sénégal va-t-il battre le Maroc ?', ['Oui', 'Non']),
  market('mkt_fla', 'O Flamengo vai ganhar a Libertadores?', ['Sim', 'Não']),
  market('mkt_ame', '¿El América le gana a Chivas el sábado?', ['Sí', 'No']),
  market('mkt_pba', 'Will Ginebra beat San Miguel in Game 7?', ['Yes', 'No']),
  market('mkt_nbo', 'Will Gor Mahia beat AFC Leopards on Sunday?', ['Yes', 'No']),
  market('mkt_ind', 'Will India win the Asia Cup?', ['Yes', 'No']),
];
const found = (text: string) => {
  const r = findByWords(all, text, 'stake', 'acct_x', how);
  return r.ok ? r.market.id : r.reason;
};

describe('a market named by a nickname or with connecting words around its name', () => {
  it('connecting words of the corridor languages and vague nouns ("thing", "matter", "one") are left out when nothing matched as written', () => {
    expect(found('the Ginebra vs San Miguel thing')).toBe('mkt_pba');
    expect(found('laban ng Ginebra')).toBe('mkt_pba');
    expect(found('Gor Mahia matter')).toBe('mkt_nbo');
    expect(found('ile ya Gor Mahia')).toBe('mkt_nbo');
    expect(found('Sénégal contre le Maroc')).toBe('mkt_sen');
  });

  it('a one-word nickname names its team: "Lions", "Mengão", "Águilas", "Gunners", "Naija"', () => {
    expect(found('les Lions')).toBe('mkt_sen');
    expect(found('Mengão')).toBe('mkt_fla');
    expect(found('las Águilas')).toBe('mkt_ame');
    expect(found('Gunners cup')).toBe('mkt_gunners');
    expect(found('Naija friendly')).toBe('mkt_nga');
  });

  it('near misses: a word no question holds is still not found; vague words alone name nothing', () => {
    expect(found('the Chelsea thing')).toBe('market_not_found');
    expect(found('Ginebra vs Magnolia')).toBe('market_not_found');
    expect(found('that one')).toBe('market_not_found');
    expect(found('the thing')).toBe('market_not_found');
  });

  it('a nickname names an outcome too ("Naija" the market\'s "Nigeria"); an unknown word still names none', () => {
    expect(matchOutcome(['Nigeria', 'Ghana'], 'Naija')).toBe(0);
    expect(matchOutcome(['Nigeria', 'Senegal'], 'Lions')).toBe(1);
    expect(matchOutcome(['Nigeria', 'Ghana'], 'Eagles')).toBeUndefined();
  });

  it('a nickname of several words names its team: "Men in Blue", "Super Eagles"', () => {
    expect(found('Men in Blue')).toBe('mkt_ind');
    expect(found('the Super Eagles friendly')).toBe('mkt_nga');
  });

  it('near miss: the words of a nickname apart name nothing', () => {
    expect(found('blue men')).toBe('market_not_found');
  });
});
