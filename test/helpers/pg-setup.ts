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
  expect(overBudget(file, peak)).toBeUndefined();
});
