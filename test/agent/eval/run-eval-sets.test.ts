import { describe, expect, it } from 'vitest';
import { runEval } from './run-eval.js';

/**
 * Runs of several sets are independent: a market one set's message creates ("gumawa ng market: uulan ba
 * sa Manila bukas?", a rain market) is cancelled before the next set, so a later stake on the fixture
 * rain market ("weka 200 kwa No kwenye soko la mvua") is not answered "which market?".
 */
describe('eval runner: each set meets only the fixture markets', () => {
  it('a stake after another set created a market of the same words stakes on the fixture market', { timeout: 300_000 }, async () => {
    const report = await runEval({ sets: ['corridor', 'corridor-4'], filter: (c) => c.id === 'c-tl-10' || c.id === 'c4-sw-06' });
    expect(report.results.map((r) => [r.id, r.observed.action])).toEqual([
      ['c-tl-10', 'market_create'],
      ['c4-sw-06', 'market_stake'],
    ]);
    const stake = report.results[1]!;
    expect(stake.actionOk && stake.argsOk, stake.reply).toBe(true);
  });
});

/**
 * Issue h12: each set gets its own seeded merchant payments. corridor and corridor-8 both refund
 * fatou's `{settled}` payment; with one payment per sender for the whole run the second refund met an
 * already-refunded payment ("not_refundable") and was scored as a wrong action.
 */
describe('eval runner: each set refunds its own seeded payment', () => {
  it('two sets refunding the same sender\'s {settled} payment both refund', { timeout: 300_000 }, async () => {
    const report = await runEval({ sets: ['corridor', 'corridor-8'], filter: (c) => c.id === 'c-fr-16' || c.id === 'c8-fr-05' });
    expect(report.results.map((r) => [r.id, r.observed.action, r.actionOk && r.argsOk])).toEqual([
      ['c-fr-16', 'refund', true],
      ['c8-fr-05', 'refund', true],
    ]);
  });
});
