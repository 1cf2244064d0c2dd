import { describe, expect, it } from 'vitest';
import { capMultiProcess, MAX_MULTI_PROCESS, MULTI_PROCESS, multiProcessWeight } from './sequencer.js';

type Row = { project: string; file: string; s: number };

/**
 * How many multi-process files run at once at most when `order` is fed to `workers` workers
 * (`weigh`: a file's share, by default one per multi-process file).
 */
function peakMultiProcess(order: Row[], workers: number, weigh: (file: string) => number = (file) => (MULTI_PROCESS.test(file) ? 1 : 0)): number {
  const running: Array<{ end: number; heavy: number }> = [];
  let now = 0;
  let peak = 0;
  for (const r of order) {
    if (running.length === workers) {
      running.sort((a, b) => a.end - b.end);
      now = running.shift()!.end;
    }
    running.push({ end: now + r.s, heavy: weigh(r.file) });
    peak = Math.max(peak, running.reduce((a, x) => a + x.heavy, 0));
  }
  return peak;
}

describe('the sequencer keeps multi-process files to two at once (docs/testing.md, "CI wall time")', () => {
  // The pg project's head as the duration table has it: three instance files first.
  const rows: Row[] = [
    { project: 'pg', file: 'test/settlement/settle.instances.pg.test.ts', s: 150 },
    { project: 'pg', file: 'test/settlement/moves.instances.pg.test.ts', s: 120 },
    { project: 'pg', file: 'test/settlement/transfers.instances.pg.test.ts', s: 110 },
    { project: 'pg', file: 'test/policies/guard.pg.test.ts', s: 86 },
    { project: 'pg', file: 'test/claims/claims.crash.pg.test.ts', s: 72 },
    { project: 'pg', file: 'test/store/multi-instance.pg.test.ts', s: 50 },
    // Light files enough that none run out while a heavy one waits (the pg project: about 900 s of them).
    ...Array.from({ length: 100 }, (_, i) => ({ project: 'pg', file: `test/p/light-${i}.pg.test.ts`, s: 10 })),
    { project: 'unit', file: 'test/agent/eval.test.ts', s: 147 },
    { project: 'unit', file: 'test/chain/power-loss.crash.test.ts', s: 72 },
    ...Array.from({ length: 60 }, (_, i) => ({ project: 'unit', file: `test/u/light-${i}.test.ts`, s: 5 })),
  ];

  it('three workers: the longest-first order would run three at once; the capped order never more than two', () => {
    expect(peakMultiProcess(rows, 3)).toBe(3);
    const capped = capMultiProcess(rows, 3);
    expect(peakMultiProcess(capped, 3)).toBeLessThanOrEqual(MAX_MULTI_PROCESS);
    // Every file still runs, once; the longest still starts first, and projects stay together where they can.
    expect([...capped].sort((a, b) => a.file.localeCompare(b.file))).toEqual([...rows].sort((a, b) => a.file.localeCompare(b.file)));
    expect(capped[0]!.file).toBe(rows[0]!.file);
    expect(capped.slice(0, 106).every((r) => r.project === 'pg')).toBe(true);
  });

  it('the instance files that run both their deployments at once count twice: none beside another multi-process file', () => {
    for (const f of ['settle', 'moves', 'transfers']) expect(multiProcessWeight(`test/settlement/${f}.instances.pg.test.ts`)).toBe(2);
    expect(multiProcessWeight('test/claims/claims.crash.pg.test.ts')).toBe(1);
    expect(multiProcessWeight('test/policies/guard.pg.test.ts')).toBe(0);
    const capped = capMultiProcess(rows, 3);
    // Six service processes at most at any time, as with two one-deployment files.
    expect(peakMultiProcess(capped, 3, multiProcessWeight)).toBeLessThanOrEqual(MAX_MULTI_PROCESS);
    // The longest still starts first; the next instance file waits for it, light files fill the other workers.
    expect(capped.slice(0, 3).map((r) => r.file)).toEqual(['test/settlement/settle.instances.pg.test.ts', 'test/policies/guard.pg.test.ts', 'test/store/multi-instance.pg.test.ts']);
  });

  it('two workers: the order is left as it was (without files that count twice)', () => {
    const single = rows.filter((r) => multiProcessWeight(r.file) < 2);
    expect(capMultiProcess(single, 2)).toEqual(single);
  });
});
