import { describe, expect, it } from 'vitest';
import { capMultiProcess, MAX_MULTI_PROCESS, MULTI_PROCESS } from './sequencer.js';

type Row = { project: string; file: string; s: number };

/** How many multi-process files run at once at most when `order` is fed to `workers` workers. */
function peakMultiProcess(order: Row[], workers: number): number {
  const running: Array<{ end: number; heavy: boolean }> = [];
  let now = 0;
  let peak = 0;
  for (const r of order) {
    if (running.length === workers) {
      running.sort((a, b) => a.end - b.end);
      now = running.shift()!.end;
    }
    running.push({ end: now + r.s, heavy: MULTI_PROCESS.test(r.file) });
    peak = Math.max(peak, running.filter((x) => x.heavy).length);
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
    ...Array.from({ length: 20 }, (_, i) => ({ project: 'pg', file: `test/p/light-${i}.pg.test.ts`, s: 10 })),
    { project: 'unit', file: 'test/agent/eval.test.ts', s: 147 },
    { project: 'unit', file: 'test/chain/power-loss.crash.test.ts', s: 72 },
    ...Array.from({ length: 10 }, (_, i) => ({ project: 'unit', file: `test/u/light-${i}.test.ts`, s: 5 })),
  ];

  it('three workers: the longest-first order would run three at once; the capped order never more than two', () => {
    expect(peakMultiProcess(rows, 3)).toBe(3);
    const capped = capMultiProcess(rows, 3);
    expect(peakMultiProcess(capped, 3)).toBeLessThanOrEqual(MAX_MULTI_PROCESS);
    // Every file still runs, once; the longest still starts first, and projects stay together where they can.
    expect([...capped].sort((a, b) => a.file.localeCompare(b.file))).toEqual([...rows].sort((a, b) => a.file.localeCompare(b.file)));
    expect(capped[0]!.file).toBe(rows[0]!.file);
    expect(capped.slice(0, 26).every((r) => r.project === 'pg')).toBe(true);
  });

  it('two workers: the order is left as it was', () => {
    expect(capMultiProcess(rows, 2)).toEqual(rows);
  });
});
