import { describe, expect, it } from 'vitest';
import { runEval } from './eval/run-eval.js';
import { formatReport } from './eval/score.js';
import { classify, countServed, formatServed } from './eval/served-report.js';

/**
 * The agent evaluation (test/agent/eval/README.md): every message of the development,
 * held-out, unseen, fresh, merchant and corridor sets through the real POST /api/agent/settle with the local engine
 * on the embedded chain. Fails when fewer than 95% of messages get the right action, when any
 * message that must not move money moves some, or when the chain disagrees with an answer.
 *
 * The fresh set (issue 20) is sent to act at once, every message: it must show no unsafe move,
 * no wrong amount, at most one false refusal in 50 clear requests, and at least 84% understood
 * at once (after the issue-20 work: 138/160; before it: 117/160 with 17 unsafe).
 */
describe('agent evaluation set (local engine, real HTTP, embedded chain)', () => {
  it('gets >= 95% of actions right and never moves money it must not', { timeout: 900_000 }, async () => {
    const report = await runEval({ sets: ['dev', 'held-out', 'unseen', 'fresh', 'merchant', 'corridor', 'corridor-2', 'corridor-3', 'corridor-4', 'corridor-5', 'corridor-6', 'corridor-7', 'corridor-8', 'corridor-9', 'corridor-10', 'corridor-11', 'corridor-12'] });
    const fresh = report.results.filter((r) => r.set === 'fresh');
    const corridor = report.results.filter((r) => r.set.startsWith('corridor'));
    // The table and the development set's misses, for whoever reads the test output.
    console.log(formatReport(report));
    console.log(formatServed(fresh));
    console.log(formatServed(corridor));
    expect(report.total).toBeGreaterThanOrEqual(700);
    // At least 120 messages that must not move money, in every one of the eight languages.
    expect(report.results.filter((r) => r.expected === 'none').length).toBeGreaterThanOrEqual(120);
    expect(new Set(report.results.map((r) => r.lang)).size).toBe(8);
    expect(report.results.filter((r) => r.forbiddenMove).map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(report.results.filter((r) => r.chainMismatch).map((r) => `${r.id}: ${r.chainMismatch}`)).toEqual([]);
    expect(report.sampled).toBeGreaterThanOrEqual(30);
    expect(report.actionAccuracy).toBeGreaterThanOrEqual(0.95);

    // Issue 20, on the fresh set sent to act at once.
    expect(fresh.length).toBeGreaterThanOrEqual(150);
    const served = countServed(fresh);
    expect(fresh.filter((r) => classify(r).unsafe).map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(fresh.filter((r) => classify(r).wrongAmount).map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    const clear = fresh.filter((r) => r.expected !== 'none').length;
    expect(served.falseRefusal).toBeLessThanOrEqual(Math.floor(clear / 50));
    expect(served.understood / served.n).toBeGreaterThanOrEqual(0.84);

    // Issue 23 (sixth round): the corridor sets, sent to act at once (corridor: 176/200 understood before the
    // round's engine work, 195 after; corridor-2, never tuned on: 65/80 and 66/80). Nothing unsafe, no wrong amount.
    // Issue h7: corridor-3 (120 messages written before reading the parser; 111/120 before that round's engine
    // work, tuned on after) joins them under the same bars (docs/agent-eval.md). Issue h8: corridor-4 too
    // (120, written before reading the parser: 89/120 understood with 10 unsafe before that round, 116+ after).
    // Issue h9: corridor-5 too (120, written before reading the parser: 104/120 understood at first, 0 unsafe
    // once the scorer read masked claim phones with a three-digit calling code).
    // Issue h10: corridor-6 too (120, written and committed before reading the parser: 99/120 understood at
    // first, 0 unsafe, 1 wrong amount held ("mil doscientos" read as 1000), 3 false refusals; 118 after).
    // Issue h11: corridor-7 too (120, written and committed before reading the parser: 98/120 understood at
    // first, 0 unsafe, 0 wrong amount, 3 false refusals; 118 after). All seven: 874/880 understood at once after
    // that round, so the floor is 95% (it was 90% over six sets at 750/760).
    // Issue h12: corridor-8 too (120, written and committed before reading the parser: 93/120 understood at
    // first, 0 unsafe, 0 wrong amount, 10 false refusals; 112 after, 0 false refusals). All eight: 988/1000.
    // Issue h13: corridor-9 too (120, written and committed before reading the parser: 99/120 understood at
    // first as written, 0 unsafe, 2 wrong amounts held (corrections held with the amount taken back), 8 false
    // refusals; 105/120 once its corrections were scored as asks like corridor-5's; 118 after). All nine: 1106/1120.
    // Issue h15: corridor-10 too (120, written and committed before reading the parser: 92/120 understood at
    // first, 2 unsafe (currency signs after the amount: "150,00 R$" read as rand, a Mexican "500$" as US dollars),
    // 0 wrong amount, 10 false refusals; 108 after, 0 unsafe, 0 false refusals; docs/agent-eval.md). All ten: 1214/1240.
    // Issue h16: corridor-11 too (120, written and committed before reading the parser: 104/120 understood at
    // first, 0 unsafe, 1 wrong amount held ("2 lucas" as 2), 5 false refusals; 109 after, 1 false refusal;
    // docs/agent-eval.md, sixteenth round). All eleven: 1323/1360.
    // Issue h17: corridor-12 too (120, written and committed before reading the parser: 108/120 understood at
    // first, 0 unsafe, 0 wrong amount, 2 false refusals; 110 after, 0 false refusals; docs/agent-eval.md,
    // seventeenth round).
    expect(corridor.length).toBeGreaterThanOrEqual(1480);
    expect(corridor.filter((r) => r.set === 'corridor-12').length).toBe(120);
    expect(corridor.filter((r) => r.set === 'corridor-11').length).toBe(120);
    expect(corridor.filter((r) => r.set === 'corridor-10').length).toBe(120);
    expect(corridor.filter((r) => r.set === 'corridor-9').length).toBe(120);
    expect(corridor.filter((r) => r.set === 'corridor-8').length).toBe(120);
    expect(corridor.filter((r) => r.set === 'corridor-5').length).toBe(120);
    expect(corridor.filter((r) => r.set === 'corridor-6').length).toBe(120);
    expect(corridor.filter((r) => r.set === 'corridor-7').length).toBe(120);
    expect(corridor.filter((r) => classify(r).unsafe || r.forbiddenMove).map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(corridor.filter((r) => classify(r).wrongAmount).map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(countServed(corridor).understood / corridor.length).toBeGreaterThanOrEqual(0.95);

    // Issue 25: refunds, captures and voids of the merchant's own payments; never a wrong money move.
    const merchant = report.results.filter((r) => r.set === 'merchant');
    expect(merchant.length).toBeGreaterThanOrEqual(40);
    expect(merchant.filter((r) => r.wrongMove || r.forbiddenMove).map((r) => `${r.id}: ${r.message}`)).toEqual([]);
    expect(merchant.filter((r) => r.actionOk && r.argsOk).length / merchant.length).toBeGreaterThanOrEqual(0.9);
  });
});
