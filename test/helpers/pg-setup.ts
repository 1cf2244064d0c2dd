import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { PG_RUN_BUDGET, PG_SERVER_CONNECTIONS, pgConnections } from './pg-budget.js';
import { madeHere } from './pg.js';
import { dropRegisteredDatabases } from './pg-target.js';
import { ConnectionWatch, overBudget } from './pg-watch.js';

/**
 * The `pg` project's per-file setup: every file's databases go when the file is done, and the
 * file may hold no more connections to them at once than its budget (test/helpers/pg-budget.ts):
 * a watcher counts its sessions while it runs and the file fails when it held more.
 * SP_PG_PEAKS=<file> appends each file's peak as a JSON line (the figures in docs/testing.md).
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let watch: ConnectionWatch | undefined;
let serverChecked = false;

beforeAll(async () => {
  madeHere.clear();
  watch = new ConnectionWatch(madeHere);
  const admin = await watch.start();
  if (!serverChecked) {
    // The budget is written for a server of 100 clients; a smaller one would fail files at random.
    const max = Number(((await admin.query('SHOW max_connections')) as { rows: Array<{ max_connections: string }> }).rows[0]!.max_connections);
    if (max < PG_SERVER_CONNECTIONS) throw new Error(`PostgreSQL allows ${max} connections; the test budget (test/helpers/pg-budget.ts, ${PG_RUN_BUDGET} for files) needs ${PG_SERVER_CONNECTIONS}`);
    serverChecked = true;
  }
});

// (vitest reads a hook's first parameter as fixtures: it must be a destructuring pattern)
afterAll(async ({}, suite) => {
  const peak = (await watch?.stop()) ?? 0;
  watch = undefined;
  await dropRegisteredDatabases();
  madeHere.clear();
  const file = path.relative(ROOT, suite.file?.filepath ?? (suite as { filepath?: string }).filepath ?? '').replaceAll('\\', '/');
  if (process.env.SP_PG_PEAKS) appendFileSync(process.env.SP_PG_PEAKS, `${JSON.stringify({ file, peak, budget: pgConnections('pg', file) })}\n`);
  // A file over its budget is named loudly in the run's output; it fails only under
  // SP_PG_BUDGET_STRICT=1. A pool opens connections as concurrency asks, so a loaded machine can
  // lift a file's peak past a budget measured on a quiet one (checkout-expiry: 14 -> 16): that must
  // not fail CI's run, while the sequencer's plan still keeps the run's sum under the server's 100.
  const over = overBudget(file, peak);
  if (over && process.env.SP_PG_BUDGET_STRICT === '1') expect(over).toBeUndefined();
  // eslint-disable-next-line no-console
  else if (over) console.warn(`PostgreSQL connection budget: ${over}`);
});
