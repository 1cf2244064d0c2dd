#!/usr/bin/env node
/**
 * `npm test`: the fast and unit projects, plus the `pg` project (the PostgreSQL store's tests and the core
 * HTTP suite again on PostgreSQL) when a PostgreSQL server answers at TEST_PG_ADMIN_URL
 * (default postgres://postgres@127.0.0.1:5432/test). Without one, the `pg` project is left out
 * with a loud notice, unless REQUIRE_POSTGRES=1 or CI=true: then a missing server fails the
 * run (CI never passes without the PostgreSQL tests). Extra arguments go to vitest.
 *
 * `npm run test:ci` is this with `--project browser` added: the page tests in the same vitest run,
 * so they share its workers instead of starting after its last file (docs/testing.md, "CI wall time").
 * Both run with a TMPDIR of their own, removed at the end (./run-tmp.mjs).
 */
import pg from 'pg';
import { spawnWithOwnTmp } from './run-tmp.mjs';

const url = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const required = process.env.REQUIRE_POSTGRES === '1' || process.env.CI === 'true';

async function reachable() {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const ok = await reachable();
const projects = ['--project', 'fast', '--project', 'unit'];
if (ok === true) {
  projects.push('--project', 'pg');
} else if (required) {
  console.error(`\nPostgreSQL is required (REQUIRE_POSTGRES=1 or CI=true) but ${url} is not reachable: ${ok}\n`);
  process.exit(1);
} else {
  const line = '!'.repeat(78);
  console.error(
    `\n${line}\n!! PostgreSQL NOT REACHABLE at ${url} (${ok}).\n` +
      `!! SKIPPING the PostgreSQL store tests and the core HTTP suite on PostgreSQL.\n` +
      `!! CI refuses this (REQUIRE_POSTGRES=1 / CI=true); see docs/store.md.\n${line}\n`,
  );
}
// The run's temporary files in one folder, removed at its end (./run-tmp.mjs).
const { exited } = spawnWithOwnTmp('npx', ['vitest', 'run', ...projects, ...process.argv.slice(2)]);
process.exit(await exited);
