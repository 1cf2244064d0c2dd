import { createHash } from 'node:crypto';
import { dropDatabase, ensureDatabase } from './pg.js';

/**
 * When the test run targets PostgreSQL (TEST_STORE=pg, the `pg` vitest project), each service's
 * DATA_DIR gets a database of its own, derived from the path, so a restarted service finds
 * its data again. Readers of stored data (helpers/stored.ts) look the database up here.
 */
export const targetsPostgres = process.env.TEST_STORE === 'pg';

const byDataDir = new Map<string, string>();

export async function databaseFor(dataDir: string): Promise<string> {
  const tag = `t_${createHash('sha256').update(dataDir).digest('hex').slice(0, 20)}`;
  const db = await ensureDatabase(tag);
  byDataDir.set(dataDir, db.name);
  return db.url;
}

export function registeredDatabase(dataDir: string): string | undefined {
  return byDataDir.get(dataDir);
}

/** Drops every database this test file's services used (the pg project calls it after each file). */
export async function dropRegisteredDatabases(): Promise<void> {
  const names = [...byDataDir.values()];
  byDataDir.clear();
  for (const n of names) await dropDatabase(n);
}

export async function dropDatabaseFor(dataDir: string): Promise<void> {
  const name = byDataDir.get(dataDir);
  if (!name) return;
  byDataDir.delete(dataDir);
  await dropDatabase(name);
}
