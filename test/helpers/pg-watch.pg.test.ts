import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_FILE_DEFAULT } from './pg-budget.js';
import { createDatabase, type TestDatabase } from './pg.js';
import { ConnectionWatch, overBudget } from './pg-watch.js';

/**
 * The PostgreSQL budget's watch (test/helpers/pg-budget.ts, docs/testing.md "Fifteenth round"):
 * it sees a pool that fills up for a moment, and a file holding more than its budget is named.
 */
let db: TestDatabase | undefined;
let clients: pg.Client[] = [];
afterAll(async () => {
  // Each client's end resolves once its socket is closed (a pool's end resolved earlier, and the
  // database's forced drop then killed sessions still closing: unhandled 57P01 errors in a clean-clone run).
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  await db?.drop();
});

describe('the connection watch behind each pg file\'s budget', () => {
  it('sees every session a pool opens on the watched database, and names a file over its budget', async () => {
    db = await createDatabase('watch');
    const watch = new ConnectionWatch(new Set([db.name]), 50);
    await watch.start();
    const extra = PG_FILE_DEFAULT + 1;
    // `extra` sessions at once, each holding its connection until all are open.
    clients = Array.from({ length: extra }, () => new pg.Client({ connectionString: db!.url }));
    for (const c of clients) c.on('error', () => undefined);
    await Promise.all(clients.map((c) => c.connect()));
    await watch.sample();
    expect(await watch.stop()).toBe(extra);
    expect(overBudget('test/p/one-service.pg.test.ts', extra)).toBe(`test/p/one-service.pg.test.ts held ${extra} PostgreSQL connections at once; its budget is ${PG_FILE_DEFAULT} (test/helpers/pg-budget.ts)`);
    expect(overBudget('test/p/one-service.pg.test.ts', PG_FILE_DEFAULT)).toBeUndefined();
    expect(overBudget('test/policies/caps.instances.pg.test.ts', extra)).toBeUndefined();
  });
});
