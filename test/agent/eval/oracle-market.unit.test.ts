import { describe, expect, it } from 'vitest';
import { namedMarket } from './oracle.js';

/** The oracle engine names a stake's market with the person's own words, as the service finds it. */
describe('oracle: the market a message names', () => {
  const bbn = 'Will a woman win Big Brother Naija (BBNaija) this season?';
  it('a short form of a question word ("BBN" for "BBNaija") and a word in another language ("mvua" for "rain")', () => {
    expect(namedMarket('oya put 2k for No for the BBN market', bbn, 'No')).toBe('bbn');
    expect(namedMarket('weka 500 bob kwa Yes kwa ile market ya mvua', 'Will it rain in Nairobi on Saturday?', 'Yes')).toBe('mvua');
    expect(namedMarket('put 1k on Yes in the arsenal market', 'Will Arsenal win the Premier League this season?', 'Yes')).toBe('arsenal');
  });

  it('still throws when the message names no word of the question', () => {
    expect(() => namedMarket('put 1k on Yes in the chelsea market', bbn, 'Yes')).toThrow(/names no word/);
  });
});
