import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Test databases on the machine's PostgreSQL (docs/store.md). Each test file or service gets
 * a database of its own, named with TEST_DB_PREFIX, created here and dropped when done.
 */
export const PG_ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_DB_PREFIX = 'pg_h_';

export function databaseUrl(name: string): string {
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<R>(fn: (c: pg.Client) => Promise<R>): Promise<R> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A new empty database (`tag` plus a random suffix, or random); `drop()` removes it even with clients connected. */
export async function createDatabase(tag?: string, opts: { prefix?: string } = {}): Promise<TestDatabase> {
  // A tag names the database for a reader of pg_database, never alone: a fixed name collided
  // with a leftover of an interrupted run, or with the same file run elsewhere on the server.
  const unique = randomBytes(6).toString('hex');
  const tail = (tag ? `${tag.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 40)}_${unique}` : unique);
  return createNamed(`${opts.prefix ?? TEST_DB_PREFIX}${tail}`.slice(0, 63));
}

/**
 * Every database made here in this process, for pg-setup's count of what a file holds
 * (test/helpers/pg-budget.ts); a worker runs one file at a time, and pg-setup empties it per file.
 */
export const madeHere = new Set<string>();

async function createNamed(name: string): Promise<TestDatabase> {
  madeHere.add(name);
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  return { name, url: databaseUrl(name), drop: () => dropDatabase(name) };
}

/** The database for `tag`, created on first use (a restarted service finds its data again). */
export async function ensureDatabase(tag: string): Promise<TestDatabase> {
  const name = `${TEST_DB_PREFIX}${tag}`.slice(0, 63);
  const exists = await admin(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount);
  if (!exists) return createNamed(name);
  madeHere.add(name);
  return { name, url: databaseUrl(name), drop: () => dropDatabase(name) };
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** True when the server at PG_ADMIN_URL answers. */
export async function postgresReachable(): Promise<boolean> {
  try {
    await admin((c) => c.query('SELECT 1'));
    return true;
  } catch {
    return false;
  }
}
