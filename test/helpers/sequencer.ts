import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { PG_FILE_DEFAULT, PG_RUN_BUDGET, pgConnections } from './pg-budget.js';

/**
 * The order files start in (docs/testing.md, "Where the suite's time goes"):
 *
 * 1. One project after another, never interleaved. With `isolate: false` a worker keeps its
 *    module graph only while the next file in the queue is of the same project (vitest's pool
 *    stops the runner otherwise), so a `pg, unit, pg, unit…` queue starts a new worker process
 *    and imports the service again at every switch. The project with the most time goes first,
 *    `fast` (short files, threads) last, so the workers end together on short files.
 * 2. Within a project, longest first (longest-processing-time scheduling), by the per-file
 *    durations measured on a whole run (`test/helpers/durations.json`, written by
 *    `node scripts/test-durations.mjs`). CI starts without vitest's own cache of durations, and
 *    the slowest files are small ones that wait on processes (the agent evaluation is 40
 *    lines), so vitest's fallback order (largest file first) started them last.
 * 3. A file not in the table yet gets an estimate from its kind (the patterns below).
 * 4. At most two multi-process files (crash, instance and process tests: three service
 *    processes and an anvil each) at once. The order above is played out on the run's workers
 *    with the expected durations, and a worker that would start a third one takes the next
 *    other file instead (docs/testing.md, "CI wall time"): with three workers, the three
 *    instance files started together held nine services, ran past their 300 s timeouts on the
 *    loaded machine and took up to 100 PostgreSQL connections with guard.pg.
 * 5. PostgreSQL connections: the `pg` files running at once never hold more than PG_RUN_BUDGET
 *    between them by their budgets (test/helpers/pg-budget.ts; pg-setup.ts fails a file that
 *    holds more than its own). Played out the same way: a worker that would start a file over
 *    the budget takes the next file that fits.
 */
const SLOW: Array<[RegExp, number]> = [
  // Several service processes (src/main.ts) killed and restarted, one or two minutes each.
  [/\.(crash|instances|processes)(\.pg)?\.test\.ts$/, 90],
  // The agent evaluation: hundreds of messages through the real service and chain.
  [/test\/agent\/eval(\.test\.ts|\/oracle\.test\.ts)$/, 60],
  // Whole journeys and the reconcilers, each waits on the chain and the service's timers.
  [/\.e2e\.test\.ts$/, 20],
  [/test\/settlement\/reconcile\.test\.ts$/, 20],
];

type Table = Record<string, number>;

function loadTable(): Table {
  try {
    const raw = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as { seconds?: Table };
    return raw.seconds ?? {};
  } catch {
    return {};
  }
}

const rel = (file: string, root: string) => {
  const f = file.replaceAll('\\', '/');
  const r = root.replaceAll('\\', '/').replace(/\/?$/, '/');
  return f.startsWith(r) ? f.slice(r.length) : f;
};

/** Seconds a file is expected to take: measured, else by its kind, else 0 (vitest's own order). */
export function expectedSeconds(table: Table, project: string, file: string): number {
  const measured = table[`${project}:${file}`];
  if (measured !== undefined) return measured;
  return SLOW.find(([re]) => re.test(file))?.[1] ?? 0;
}

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const table = loadTable();
    const root = this.ctx.config.root;
    const rows = sorted.map((f, i) => ({ f, i, project: f.project.name, s: expectedSeconds(table, f.project.name, rel(f.moduleId, root)) }));
    const total = new Map<string, number>();
    for (const r of rows) total.set(r.project, (total.get(r.project) ?? 0) + r.s);
    // `fast` runs in threads, not the forks of the others, and its files take a second or less: last.
    const weight = (p: string) => (p === 'fast' ? -1 : (total.get(p) ?? 0));
    // A stable sort: projects by their total time, then longest first, then vitest's own order.
    rows.sort((a, b) => weight(b.project) - weight(a.project) || (a.project < b.project ? -1 : a.project > b.project ? 1 : 0) || b.s - a.s || a.i - b.i);
    const workers = Number(this.ctx.config.maxWorkers) || 1;
    return capMultiProcess(rows.map((r) => ({ ...r, file: rel(r.f.moduleId, root) })), workers).map((x) => x.f);
  }
}

/** Files that start several service processes (and their anvil) of their own. */
export const MULTI_PROCESS = /\.(crash|instances|processes)(\.pg)?\.test\.ts$/;
export const MAX_MULTI_PROCESS = 2;
/**
 * Multi-process files that run their two deployments at once (`describe.concurrent.each`: two
 * databases, two anvils, six service processes): each counts as two against MAX_MULTI_PROCESS,
 * so the machine never holds more service processes than two one-deployment files did.
 */
export const TWO_DEPLOYMENTS = /test\/settlement\/(settle|moves|transfers)\.instances\.pg\.test\.ts$/;

/** How many of MAX_MULTI_PROCESS's places a file takes. */
export const multiProcessWeight = (file: string) => (TWO_DEPLOYMENTS.test(file) ? 2 : MULTI_PROCESS.test(file) ? 1 : 0);

/**
 * Replays `rows` (in priority order) on `workers` workers with their expected seconds and
 * returns them in the order they start when no more than MAX_MULTI_PROCESS multi-process files
 * run at once and the running files' PostgreSQL budgets add up to PG_RUN_BUDGET at most: a free
 * worker takes the first file that keeps to both, of the same project as the first waiting file
 * if there is one (a project switch costs the worker a fresh import).
 */
export function capMultiProcess<T extends { project: string; file: string; s: number }>(rows: T[], workers: number): T[] {
  const waiting = [...rows];
  const out: T[] = [];
  const running: Array<{ end: number; heavy: number; conns: number }> = [];
  let now = 0;
  while (waiting.length) {
    while (running.length < workers && waiting.length) {
      const heavyNow = running.reduce((a, r) => a + r.heavy, 0);
      const connsNow = running.reduce((a, r) => a + r.conns, 0);
      // Room is kept for a one-service pg file on every other free worker: vitest's pool never
      // idles a worker, so the files after a big one must still fit the budget when they start.
      const others = (workers - running.length - 1) * PG_FILE_DEFAULT;
      const fits = (r: T) =>
        (multiProcessWeight(r.file) === 0 || heavyNow + multiProcessWeight(r.file) <= MAX_MULTI_PROCESS) &&
        // A file over the budget on its own still runs, alone.
        (running.length === 0 || connsNow + pgConnections(r.project, r.file) + others <= PG_RUN_BUDGET);
      let i = waiting.findIndex((r) => r.project === waiting[0]!.project && fits(r));
      if (i < 0) i = waiting.findIndex(fits);
      // Nothing fits: vitest's pool does not leave the worker idle, it starts the next file in the
      // order anyway, so the order puts there the file that oversteps least.
      if (i < 0) i = lightest(waiting, (r) => [multiProcessWeight(r.file), pgConnections(r.project, r.file)]);
      const [r] = waiting.splice(i, 1) as [T];
      out.push(r);
      running.push({ end: now + Math.max(r.s, 0.5), heavy: multiProcessWeight(r.file), conns: pgConnections(r.project, r.file) });
    }
    running.sort((a, b) => a.end - b.end);
    now = running.shift()?.end ?? now;
  }
  return out;
}

/** The index of the row with the smallest key (compared in order), the first of equals. */
function lightest<T>(rows: T[], key: (r: T) => number[]): number {
  let best = 0;
  for (let i = 1; i < rows.length; i++) {
    const a = key(rows[i]!);
    const b = key(rows[best]!);
    const d = a.findIndex((x, k) => x !== b[k]);
    if (d >= 0 && a[d]! < b[d]!) best = i;
  }
  return best;
}
