import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';
import { PG_FILE_BUDGET, PG_FILE_DEFAULT, PG_RUN_BUDGET, PG_SERVER_CONNECTIONS, pgConnections } from './pg-budget.js';
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
    // The longest still starts first; the next instance file waits for it, other files fill the other
    // workers (multi-instance.pg's three services would take the run past its PostgreSQL budget beside
    // the two: test/helpers/pg-budget.ts).
    expect(capped.slice(0, 3).map((r) => r.file)).toEqual(['test/settlement/settle.instances.pg.test.ts', 'test/policies/guard.pg.test.ts', 'test/p/light-0.pg.test.ts']);
  });

  it('two workers: the order is left as it was (without files that count twice)', () => {
    const single = rows.filter((r) => multiProcessWeight(r.file) < 2);
    expect(capMultiProcess(single, 2)).toEqual(single);
  });
});

describe('PostgreSQL connections: the budget (test/helpers/pg-budget.ts, docs/testing.md "Fifteenth round")', () => {
  /** The most the `pg` files running at once hold by their budgets when `order` is fed to `workers` workers. */
  function peakConnections(order: Row[], workers: number): number {
    const running: Array<{ end: number; conns: number }> = [];
    let now = 0;
    let peak = 0;
    for (const r of order) {
      if (running.length === workers) {
        running.sort((a, b) => a.end - b.end);
        now = running.shift()!.end;
      }
      running.push({ end: now + r.s, conns: pgConnections(r.project, r.file) });
      peak = Math.max(peak, running.reduce((a, x) => a + x.conns, 0));
    }
    return peak;
  }

  // The pg project's head as durations.json has it, with the files that hold two or three pools.
  const pgRows: Row[] = [
    { project: 'pg', file: 'test/settlement/settle.instances.pg.test.ts', s: 60 },
    { project: 'pg', file: 'test/store/multi-instance.pg.test.ts', s: 40 },
    { project: 'pg', file: 'test/policies/caps.instances.pg.test.ts', s: 38 },
    { project: 'pg', file: 'test/policies/guard.pg.test.ts', s: 36 },
    { project: 'pg', file: 'test/core/scheduler.pg.test.ts', s: 30 },
    { project: 'pg', file: 'test/store/create-roundtrips.pg.test.ts', s: 25 },
    // Light files enough that none run out while a big one waits (the pg project: about 600 s of them).
    ...Array.from({ length: 80 }, (_, i) => ({ project: 'pg', file: `test/p/light-${i}.pg.test.ts`, s: 8 })),
  ];

  it('declares each pg file its share: one service by default, more where a file holds several pools; none outside pg', () => {
    expect(pgConnections('pg', 'test/p/light-1.pg.test.ts')).toBe(PG_FILE_DEFAULT);
    expect(pgConnections('pg', 'test/settlement/moves.instances.pg.test.ts')).toBeGreaterThan(2 * 3 * 5);
    expect(pgConnections('pg', 'test/policies/caps.instances.pg.test.ts')).toBeGreaterThan(3 * 10);
    expect(pgConnections('unit', 'test/settlement/moves.instances.pg.test.ts')).toBe(0);
    expect(pgConnections('browser', 'test/web/app.browser.test.ts')).toBe(0);
    // No single file's share is more than the run's budget.
    for (const [, n] of PG_FILE_BUDGET) expect(n).toBeLessThanOrEqual(PG_RUN_BUDGET);
  });

  it('the run budget, one watcher per worker and the superusers\' 3 fit the server at the configured workers', () => {
    const workers = Number(config.test?.maxWorkers);
    expect(workers).toBeGreaterThanOrEqual(4);
    // pg-setup's watcher (one per running file), a short admin connection creating or dropping a
    // database (one per worker at a time), the 3 superuser_reserved_connections, and a person's psql or two.
    expect(PG_RUN_BUDGET + workers + workers + 3 + 2).toBeLessThanOrEqual(PG_SERVER_CONNECTIONS);
  });

  it('four workers: longest first would hold more than the budget at once; the sequencer\'s order never does', () => {
    expect(peakConnections(pgRows, 4)).toBeGreaterThan(PG_RUN_BUDGET);
    const capped = capMultiProcess(pgRows, 4);
    expect(peakConnections(capped, 4)).toBeLessThanOrEqual(PG_RUN_BUDGET);
    expect(peakMultiProcess(capped, 4, multiProcessWeight)).toBeLessThanOrEqual(MAX_MULTI_PROCESS);
    // Every file runs once; the longest still starts first.
    expect([...capped].sort((a, b) => a.file.localeCompare(b.file))).toEqual([...pgRows].sort((a, b) => a.file.localeCompare(b.file)));
    expect(capped[0]!.file).toBe(pgRows[0]!.file);
  });
});
