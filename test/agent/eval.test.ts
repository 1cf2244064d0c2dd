import { describe, expect, it } from 'vitest';
import { runEval } from './eval/run-eval.js';
import { formatReport } from './eval/score.js';

/**
 * The agent evaluation (test/agent/eval/README.md): every message of the development,
 * held-out and unseen sets through the real POST /api/agent/settle with the local engine on the embedded
 * chain. Fails when fewer than 95% of messages get the right action, when any message that
 * must not move money moves some, or when the chain disagrees with an answer.
 */
describe('agent evaluation set (local engine, real HTTP, embedded chain)', () => {
  it('gets >= 95% of actions right and never moves money it must not', { timeout: 900_000 }, async () => {
    const report = await runEval({ sets: ['dev', 'held-out', 'unseen'] });
    // The table and the development set's misses, for whoever reads the test output.
    console.log(formatReport(report));
    expect(report.total).toBeGreaterThanOrEqual(540);
    // At least 120 messages that must not move money, in every one of the eight languages.
    expect(report.results.filter((r) => r.expected === 'none').length).toBeGreaterThanOrEqual(120);
    expect(new Set(report.results.map((r) => r.lang)).size).toBe(8);
    expect(report.results.filter((r) => r.forbiddenMove).map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(report.results.filter((r) => r.chainMismatch).map((r) => `${r.id}: ${r.chainMismatch}`)).toEqual([]);
    expect(report.sampled).toBeGreaterThanOrEqual(30);
    expect(report.actionAccuracy).toBeGreaterThanOrEqual(0.95);
  });
});
