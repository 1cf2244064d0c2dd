import { describe, expect, it } from 'vitest';
import { runEval } from './run-eval.js';
import { ORACLE_READ_TOOLS, oracleEngine, recklessEngine } from './oracle.js';

/**
 * The yardstick itself: an engine that answers each message with exactly the expected call
 * must score every message right (`quote` and `activity` once the service has their tools),
 * through the real service and chain. So every expectation is reachable with the seeded
 * accounts, billers, meters, markets and limits, and the scorer reads real answers correctly.
 */
describe('agent evaluation set: an engine giving the expected answers scores them all', () => {
  it('every action and argument right, money moved only where expected, chain agreeing', { timeout: 900_000 }, async () => {
    const report = await runEval({ engine: oracleEngine() });
    const missed = report.results
      .filter((r) => !(r.actionOk && r.argsOk) && (ORACLE_READ_TOOLS || (r.expected !== 'quote' && r.expected !== 'activity')))
      .map((r) => `${r.id} [${r.expected} -> ${r.observed.action}/${r.observed.reason ?? ''}] ${r.message} :: ${r.wrongArgs.join('; ')} ${r.reply}`);
    expect(missed).toEqual([]);
    expect(report.forbiddenMoves).toBe(0);
    expect(report.chainMismatches).toBe(0);
    expect(report.wrongMoves).toBe(0);
    expect(report.sampled).toBeGreaterThanOrEqual(30);
    // The sampled money really moved (the chain check is not vacuous).
    expect(report.results.filter((r) => r.sampled && r.observed.moved).length).toBe(report.sampled);
  });

  it('an engine that moves money on every message is caught on chain for each message that must not move any', { timeout: 300_000 }, async () => {
    const report = await runEval({ engine: recklessEngine(), filter: (c) => c.expect.action === 'none' && c.id.endsWith('1'), executeEvery: 0 });
    expect(report.total).toBeGreaterThanOrEqual(8);
    expect(report.forbiddenMoves).toBe(report.total);
    // 1 USD and the 0.5% fee left each sender's wallet, read from the chain.
    expect(report.results.map((r) => r.senderDelta)).toEqual(report.results.map(() => -1_005_000n));
    expect(report.actionAccuracy).toBe(0);
  });
});
