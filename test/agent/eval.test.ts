import { describe, expect, it } from 'vitest';
import { runEval } from './eval/run-eval.js';
import { formatReport } from './eval/score.js';

/**
 * The agent evaluation (test/agent/eval/README.md): every message of the development and
 * held-out sets through the real POST /api/agent/settle with the local engine on the embedded
 * chain. Fails when fewer than 95% of messages get the right action, when any message that
 * must not move money moves some, or when the chain disagrees with an answer.
 */
describe('agent evaluation set (local engine, real HTTP, embedded chain)', () => {
  it('gets >= 95% of actions right and never moves money it must not', { timeout: 900_000 }, async () => {
    const report = await runEval();
    // The table and the development set's misses, for whoever reads the test output.
    console.log(formatReport(report));
    expect(report.total).toBeGreaterThanOrEqual(450);
    expect(report.results.filter((r) => r.forbiddenMove).map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(report.results.filter((r) => r.chainMismatch).map((r) => `${r.id}: ${r.chainMismatch}`)).toEqual([]);
    expect(report.sampled).toBeGreaterThanOrEqual(30);
    expect(report.actionAccuracy).toBeGreaterThanOrEqual(0.95);
  });
});
