import { describe, expect, it } from 'vitest';
import { matchOutcome, questionMatches } from '../../src/markets/match.js';

/** h17eval: a side named by who wins, and an outcome named by a nickname of several words. */
describe('the side a stake backs, named by who wins', () => {
  const yesNo = ['Yes', 'No'];
  it('the yes of a yes/no market that asks whether that side wins', () => {
    expect(matchOutcome(yesNo, 'Chelsea winning', 'Will Chelsea win the FA Cup?')).toBe(0);
    expect(matchOutcome(yesNo, 'Gunners to win', 'Will Arsenal win the Premier League this season?')).toBe(0);
    expect(matchOutcome(['Sim', 'Não'], 'Mengão pra ganhar', 'O Flamengo vai ganhar o Brasileirão?')).toBe(0);
  });
  it('the outcome of that name in a market of named outcomes', () => {
    expect(matchOutcome(['Ghana', 'Kenya'], 'Kenya winning', 'Who wins the final: Ghana or Kenya?')).toBe(1);
  });
  it('never guessed where the question does not ask whether it wins, or names another side', () => {
    expect(matchOutcome(yesNo, 'Chelsea winning', 'Will Chelsea lose to Spurs?')).toBeUndefined();
    expect(matchOutcome(yesNo, 'Spurs winning', 'Will Chelsea win the FA Cup?')).toBeUndefined();
    expect(matchOutcome(yesNo, 'Chelsea winning')).toBeUndefined();
  });
  it('a clause with "winning" finds the market whose question says "win"', () => {
    expect(questionMatches('Chelsea winning the cup', 'Will Chelsea win the FA Cup?')).toBe(true);
  });
});

describe('an outcome named by a nickname of several words', () => {
  it('"Super Eagles" is the market\'s "Nigeria", "Black Stars" its "Ghana"', () => {
    expect(matchOutcome(['Nigeria', 'Senegal'], 'Super Eagles')).toBe(0);
    expect(matchOutcome(['Ghana', 'Nigeria'], 'Black Stars')).toBe(0);
  });
});
