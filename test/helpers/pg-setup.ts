import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { PG_RUN_BUDGET, PG_SERVER_CONNECTIONS, pgConnections } from './pg-budget.js';
import { madeHere, PG_ADMIN_URL } from './pg.js';
import { dropRegisteredDatabases } from './pg-target.js';

/**
 * The `pg` project's per-file setup: every file's databases go when the file is done, and the
 * file may hold no more connections to them at once than its budget (test/helpers/pg-budget.ts).
 * A watcher on the admin database counts the file's sessions (pg_stat_activity by database name)
 * every SAMPLE_MS while it runs; an idle pool keeps its sessions for 10 s, so a burst of a pool
 * filling up is seen. SP_PG_PEAKS=<file> appends each file's peak as a JSON line (the figures in
 * docs/testing.md).
 */
const SAMPLE_MS = 200;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The real timers, taken before any file can fake them (vi.useFakeTimers).
const { setInterval: every, clearInterval: stopEvery } = globalThis;

let watcher: pg.Client | undefined;
let timer: NodeJS.Timeout | undefined;
let sampling: Promise<void> = Promise.resolve();
let peak = 0;
let serverChecked = false;

async function sample(): Promise<void> {
  if (!watcher || madeHere.size === 0) return;
  const r = await watcher.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ANY($1)', [[...madeHere]]);
  peak = Math.max(peak, r.rows[0]!.n);
}

beforeAll(async () => {
  madeHere.clear();
  peak = 0;
  watcher = new pg.Client({ connectionString: PG_ADMIN_URL });
  watcher.on('error', () => undefined);
  await watcher.connect();
  if (!serverChecked) {
    // The budget is written for a server of 100 clients; a smaller one would fail files at random.
    const max = Number((await watcher.query<{ max_connections: string }>('SHOW max_connections')).rows[0]!.max_connections);
    if (max < PG_SERVER_CONNECTIONS) throw new Error(`PostgreSQL allows ${max} connections; the test budget (test/helpers/pg-budget.ts, ${PG_RUN_BUDGET} for files) needs ${PG_SERVER_CONNECTIONS}`);
    serverChecked = true;
  }
  timer = every(() => {
    sampling = sampling.then(sample).catch(() => undefined);
  }, SAMPLE_MS);
  timer.unref();
});

// (vitest reads a hook's first parameter as fixtures: it must be a destructuring pattern)
afterAll(async ({}, suite) => {
  if (timer) stopEvery(timer);
  await sampling;
  await sample().catch(() => undefined);
  await watcher?.end().catch(() => undefined);
  watcher = undefined;
  await dropRegisteredDatabases();
  const file = path.relative(ROOT, suite.file?.filepath ?? (suite as { filepath?: string }).filepath ?? '').replaceAll('\\', '/');
  const budget = pgConnections('pg', file);
  if (process.env.SP_PG_PEAKS) appendFileSync(process.env.SP_PG_PEAKS, `${JSON.stringify({ file, peak, budget })}\n`);
  madeHere.clear();
  expect(peak, `${file} held ${peak} PostgreSQL connections at once; its budget is ${budget} (test/helpers/pg-budget.ts)`).toBeLessThanOrEqual(budget);
});
