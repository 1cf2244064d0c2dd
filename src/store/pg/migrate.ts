import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Pool } from 'pg';

/** The numbered SQL files, shipped beside this module: `0001_initial.sql`, `0002_...sql`. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** Any fixed 64-bit number: every instance of this service takes the same lock. */
const MIGRATION_LOCK = 7_243_100_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const out: Migration[] = [];
  for (const f of files) {
    const m = /^(\d+)_([\w-]+)\.sql$/.exec(f);
    if (!m) throw new Error(`migration file name must be NNNN_name.sql: ${f}`);
    const version = Number(m[1]);
    if (out.some((x) => x.version === version)) throw new Error(`two migrations numbered ${version}`);
    out.push({ version, name: m[2]!, sql: await readFile(`${dir}/${f}`, 'utf8') });
  }
  return out;
}

/**
 * Applies the migrations this database lacks, each in its own transaction, under a session
 * advisory lock: instances starting together wait for one another, and the second finds the
 * work done. Returns the versions applied now.
 */
export async function migrate(pool: Pool, migrations?: Migration[]): Promise<number[]> {
  const list = migrations ?? (await loadMigrations());
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version integer PRIMARY KEY,
           name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      for (const m of list) {
        if (done.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${m.version}_${m.name} failed: ${(e as Error).message}`);
        }
        applied.push(m.version);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
  return applied;
}
