import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore, updateUnread } from '../../src/store/index.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { statementCounter } from '../helpers/pg-statements.js';
import { DeferredWrites } from '../../src/store/pg/deferred-writes.js';
import { preparedSession } from '../../src/store/pg/sql-prepared.js';

/**
 * Issue 23, tenth round (h10pg), PostgreSQL only: a named statement (a plan that does not depend
 * on its values) travelling in a round trip of several statements goes as `EXECUTE` of a copy
 * prepared once per connection (src/store/pg/sql-prepared.ts), so the server no longer parses,
 * analyses and plans it on every call (about a quarter of the backends' CPU in a settle burst).
 */
const opened: Array<{ db: TestDatabase; store: PgStore }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.store.close().finally(() => o.db.drop());
});

const row = (id: string): Payment =>
  ({ id, accountId: 'acct_p', livemode: true, reference: `ref-${id}`, status: 'pending', description: '' }) as unknown as Payment;

/** One connection, so every transaction meets the same session. */
async function open(tag: string) {
  const db = await createDatabase(tag);
  const store = await PgStore.open(db.url, { poolMax: 1 });
  opened.push({ db, store });
  await store.transaction(async (tx) => {
    for (const id of ['a', 'b']) await tx.table(Payments).insert(row(id));
  });
  return store;
}

/** A held write and a read by id: one round trip of several statements, then the COMMIT. */
const writeAndRead = (s: PgStore, patch: Record<string, unknown>) =>
  s.transaction(async (tx) => {
    const t = tx.table(Payments);
    void updateUnread(t, 'a', patch as Partial<Payment>, { status: 'pending' });
    return (await t.get('a'))?.description;
  });

describe('PostgreSQL store: prepared statements inside round trips of several statements', () => {
  it('prepared once per connection (in the round trip that first needs it), then EXECUTE only', async () => {
    const s = await open('h10pg_prep');
    const counter = statementCounter();
    const sent: string[][] = [];
    for (const v of ['v1', 'v2', 'v3']) {
      counter.start();
      expect(await writeAndRead(s, { description: v })).toBe(v);
      sent.push(counter.stop().statements);
    }
    counter.restore();
    const [first, ...later] = sent;
    expect(first![0]).toMatch(/^BEGIN ISOLATION LEVEL SERIALIZABLE;\nPREPARE x\d+_sp_\w+ AS UPDATE "payments" [^;]*;\nPREPARE x\d+_sp_\w+ AS SELECT doc FROM "payments" WHERE id = \$1;\nSET LOCAL plan_cache_mode = force_generic_plan;\nEXECUTE /s);
    for (const statements of later) {
      expect(statements).toHaveLength(2);
      // Only the names and the values travel: no statement text to parse and plan.
      expect(statements[0]).toMatch(
        /^BEGIN ISOLATION LEVEL SERIALIZABLE;\nSET LOCAL plan_cache_mode = force_generic_plan;\nEXECUTE x\d+_sp_\w+\('a', .*\);\nEXECUTE x\d+_sp_\w+\('a'\)$/s,
      );
      expect(statements.join('\n')).not.toMatch(/PREPARE|UPDATE|SELECT/);
    }
    expect((await s.table(Payments).get('a'))?.description).toBe('v3');
    // Generic plans from the first run (PostgreSQL plans anew the first five otherwise, on every
    // connection), and the setting ends with the round trip.
    const plans = await s.pool.query<{ name: string; statement: string; generic_plans: string; custom_plans: string }>(
      `SELECT name, statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'x%'`,
    );
    // `statement` is the whole query string the PREPARE came in.
    const kind = (r: { name: string; statement: string }) => new RegExp(`PREPARE ${r.name} AS (\\w+)`).exec(r.statement)?.[1];
    // The setup's first insert (with its BEGIN), the held update and the read.
    expect(plans.rows.map((r) => [kind(r), Number(r.generic_plans), Number(r.custom_plans)]).sort()).toEqual([
      ['INSERT', 1, 0],
      ['SELECT', 3, 0],
      ['UPDATE', 3, 0],
    ]);
    expect((await s.pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode).toBe('auto');
  });

  it('the setting is sent once per transaction; an unnamed statement with parameters restores it first and is planned with its values', async () => {
    const s = await open('h12pg_generic_once');
    const counter = statementCounter();
    counter.start();
    const seen = await s.transaction(async (tx) => {
      const t = tx.table(Payments);
      void updateUnread(t, 'a', { description: 'x1' } as Partial<Payment>, { status: 'pending' });
      const a1 = (await t.get('a'))?.description; // round trip 1: the held update and the read, EXECUTEs
      void updateUnread(t, 'b', { description: 'x2' } as Partial<Payment>, { status: 'pending' });
      const b1 = (await t.get('b'))?.description; // round trip 2: EXECUTEs again, the setting still on
      const pending = await t.findMany({ status: 'pending' } as Partial<Payment>); // unnamed, with a parameter
      void updateUnread(t, 'a', { description: 'x3' } as Partial<Payment>, { status: 'pending' });
      const a2 = (await t.get('a'))?.description; // EXECUTEs after the restore: set again
      return [a1, b1, pending.map((p) => p.id).sort().join(','), a2];
    });
    const { statements } = counter.stop();
    counter.restore();
    expect(seen).toEqual(['x1', 'x2', 'a,b', 'x3']);
    expect(statements).toHaveLength(5);
    const GENERIC = 'SET LOCAL plan_cache_mode = force_generic_plan';
    const RESTORE = 'SET LOCAL plan_cache_mode TO DEFAULT';
    // Once in the first round trip with EXECUTEs, not again in the second, and no restore at the
    // end of either (the COMMIT ends it). Before: set and restored in every such round trip.
    expect(statements[0]).toContain(GENERIC);
    expect(statements[0]).not.toContain(RESTORE);
    expect(statements[1]).toMatch(/^EXECUTE x\d+_sp_\w+\('b', .*\);\nEXECUTE x\d+_sp_\w+\('b'\)$/s);
    // The scan by status: the restore in front, the statement inline (no generic plan for it).
    expect(statements[2]).toMatch(new RegExp(`^${RESTORE};\\nSELECT doc FROM "payments" WHERE .*'"pending"'.* ORDER BY seq ASC$`, 's'));
    expect(statements[3]).toMatch(new RegExp(`^${GENERIC};\\nEXECUTE `));
    expect(statements[4]).toBe('COMMIT');
    expect((await s.pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode).toBe('auto');
  });

  it('a ROLLBACK TO SAVEPOINT that undid the restore: the next unnamed statement with parameters restores it again', async () => {
    const s = await open('h12pg_generic_savepoint');
    const client = await s.pool.connect();
    try {
      const d = new DeferredWrites('tick', preparedSession(client));
      const run = d.runner(((text: string, values: unknown[], name?: string) =>
        name ? client.query({ name, text, values }) : client.query(text, values)) as Parameters<DeferredWrites['runner']>[0]);
      const mode = async () => (await run<{ m: string }>(`SELECT current_setting('plan_cache_mode') AS m WHERE $1::int = 1`, [1])).rows[0]!.m;
      d.begin('BEGIN');
      // Two named statements together: EXECUTEs, the setting on for the transaction.
      await Promise.all([run('SELECT $1::text AS v', ['x'], 'h12_a'), run('SELECT $1::text AS w', ['y'], 'h12_b')]);
      await run('SAVEPOINT sp', []);
      expect(await mode()).toBe('auto'); // restored in front of it (after the savepoint)
      await run('ROLLBACK TO SAVEPOINT sp', []); // undoes that restore: the session is generic again
      // Without the reset to "not known" the store believed it off and sent this with a generic plan.
      expect(await mode()).toBe('auto');
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });

  it('after a round trip that failed before its PREPAREs ran, the connection prepares again (new names) and works', async () => {
    const s = await open('h10pg_prep_fail');
    // A key no text can carry (NUL): the server refuses the whole query string, so none of it
    // ran, its PREPAREs neither.
    await expect(writeAndRead(s, { ['bad\u0000key']: undefined })).rejects.toThrow();
    const counter = statementCounter();
    counter.start();
    expect(await writeAndRead(s, { description: 'after' })).toBe('after');
    const { statements } = counter.stop();
    counter.restore();
    expect(statements[0]).toMatch(/PREPARE x1_sp_/);
    expect(await writeAndRead(s, { description: 'again' })).toBe('again');
  });
});
