import { NOTES } from '../../../src/agent/local/grounding-notes-i18n.js';
import { describe, expect, it } from 'vitest';
import { runEval } from './run-eval.js';
import { INFERRED } from '../../../src/agent/grounding/index.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { ORACLE_READ_TOOLS, bypassingEngine, oracleEngine, recklessEngine } from './oracle.js';

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
    // The sampled money really moved (the chain check is not vacuous), except where grounding holds
    // a call by a rule it names (a network from the phone's prefix, a biller from its kind): those wait for a confirm.
    const sampled = report.results.filter((r) => r.sampled);
    const moved = sampled.filter((r) => r.observed.moved);
    // The note in the person's language (issue 20): the English one or its translation.
    const notes = [...Object.values(INFERRED), ...Object.values(NOTES).flatMap((tr) => Object.values(tr))];
    const heldByRule = sampled.filter((r) => !r.observed.moved && r.observed.held && notes.some((note) => r.reply.startsWith(note)));
    expect(sampled.filter((r) => !moved.includes(r) && !heldByRule.includes(r)).map((r) => r.id)).toEqual([]);
    expect(moved.length).toBeGreaterThanOrEqual(20);
  });

  const mustNotMove = (c: { id: string; expect: { action: string } }) => c.expect.action === 'none' && c.id.endsWith('1');

  it('an engine that asks to move money on every message is stopped by grounding: not_grounded, nothing moved on chain', { timeout: 300_000 }, async () => {
    const report = await runEval({ engine: recklessEngine(), filter: mustNotMove, executeEvery: 0 });
    expect(report.total).toBeGreaterThanOrEqual(8);
    expect(report.forbiddenMoves).toBe(0);
    expect(report.results.map((r) => r.senderDelta)).toEqual(report.results.map(() => 0n));
    // Each stopped by the core: the recipient and amount are in none of these messages, or the gate refused it.
    expect(report.results.filter((r) => r.observed.status !== 422 && r.observed.action !== 'none').map((r) => r.id)).toEqual([]);
  });

  it('money moved past the core on every message is caught on chain for each message that must not move any', { timeout: 300_000 }, async () => {
    let svc: TestService | undefined;
    svc = await startTestService({ AGENT_RATE_LIMIT: '1000000/min' }, { engine: bypassingEngine(() => svc!.deps.agent) });
    try {
      const report = await runEval({ service: svc, engine: bypassingEngine(() => svc!.deps.agent), filter: mustNotMove, executeEvery: 0 });
      expect(report.total).toBeGreaterThanOrEqual(8);
      expect(report.forbiddenMoves).toBe(report.total);
      // 1 USD and the 0.5% fee left each sender's wallet, read from the chain.
      expect(report.results.map((r) => r.senderDelta)).toEqual(report.results.map(() => -1_005_000n));
    } finally {
      await svc.stop({ removeData: true });
    }
  });
});
