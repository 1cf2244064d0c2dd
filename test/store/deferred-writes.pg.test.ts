import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore, insertUnread, updateUnread } from '../../src/store/index.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { isCommit, statementCounter } from '../helpers/pg-statements.js';

/**
 * Issue 23, seventh round (h7pgsettle), PostgreSQL only: a write nobody reads the outcome of
 * (`updateLater`) has no round trip of its own: it goes with the transaction's next statement or
 * its COMMIT, and every later statement sees it; reads by id outside transactions that arrive
 * together are one statement (src/store/pg/get-batcher.ts).
 */
const opened: Array<{ db: TestDatabase; store: PgStore }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.store.close().finally(() => o.db.drop());
});

const row = (id: string, note = ''): Payment =>
  ({ id, accountId: 'acct_d', livemode: true, reference: `ref-${id}`, status: 'pending', description: note }) as unknown as Payment;

async function open(tag: string) {
  const db = await createDatabase(tag);
  const store = await PgStore.open(db.url, { poolMax: 4 });
  opened.push({ db, store });
  await store.transaction(async (tx) => {
    for (const id of ['a', 'b', 'c']) await tx.table(Payments).insert(row(id));
  });
  return store;
}

describe('PostgreSQL store: held writes and grouped reads', () => {
  it('held writes ride with the next statement and the COMMIT; later statements see them; odd values survive the literals', async () => {
    const s = await open('h7pg_dw_ok');
    const odd = `it's a "quote" \\ back\\slash, ünïcødé, $1 and ;\nCOMMIT`;
    const counter = statementCounter();
    counter.start();
    const seen = await s.transaction(async (tx) => {
      const t = tx.table(Payments);
      await updateUnread(t, 'a', { description: odd, merchantName: undefined } as Partial<Payment>, { status: 'pending' });
      const a = await t.get('a'); // carries the held write, sees it
      await updateUnread(t, 'b', { description: 'b2' } as Partial<Payment>, { status: 'settled' }); // CAS finds nothing: fine
      await updateUnread(t, 'c', { description: 'c2' } as Partial<Payment>);
      return a?.description;
    });
    const { statements } = counter.stop();
    counter.restore();
    expect(seen).toBe(odd);
    // The read (with the BEGIN and the first write), the COMMIT (with the other two): no round
    // trip of their own, the BEGIN neither (eighth round; 3 before).
    expect(statements).toHaveLength(2);
    // (Named statements go as EXECUTE of the connection's prepared copy, prepared in the same
    // round trip the first time: test/store/sql-prepared.pg.test.ts.)
    expect(statements[0]).toMatch(/^BEGIN ISOLATION LEVEL SERIALIZABLE;\n(PREPARE [^;]*;\n)*SET LOCAL plan_cache_mode = force_generic_plan;\nEXECUTE .*;\nEXECUTE /s);
    expect(isCommit(statements[1]!)).toBe(true);
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((id) => s.table(Payments).get(id)));
    expect([a?.description, b?.description, c?.description]).toEqual([odd, '', 'c2']);
  });

  it('a held insert (insertLater) rides with the COMMIT, answers the row as given; a taken id fails the transaction, nothing of it stored', async () => {
    const s = await open('h10pg_dw_insert');
    const counter = statementCounter();
    counter.start();
    const given = await s.transaction(async (tx) => insertUnread(tx.table(Payments), row('d', 'held insert')));
    const { statements } = counter.stop();
    counter.restore();
    expect(given).toEqual(row('d', 'held insert'));
    // BEGIN, the insert and COMMIT in one round trip (2 when the insert waited for its answer).
    expect(statements).toHaveLength(1);
    expect(isCommit(statements[0]!)).toBe(true);
    expect((await s.table(Payments).get('d'))?.description).toBe('held insert');
    await expect(
      s.transaction(async (tx) => {
        await tx.table(Payments).update('a', { description: 'kept?' } as Partial<Payment>);
        await insertUnread(tx.table(Payments), row('b'));
      }),
    ).rejects.toThrow();
    expect((await s.table(Payments).get('a'))?.description).toBe('');
  });

  it('a held write that fails fails the transaction, and nothing of it is stored', async () => {
    const s = await open('h7pg_dw_fail');
    await expect(
      s.transaction(async (tx) => {
        await tx.table(Payments).update('a', { description: 'kept?' } as Partial<Payment>);
        // A jsonb value PostgreSQL refuses (NUL), held until the COMMIT.
        void updateUnread(tx.table(Payments), 'b', { description: 'x\u0000y' } as Partial<Payment>);
      }),
    ).rejects.toThrow();
    expect((await s.table(Payments).get('a'))?.description).toBe('');
    // The connection went back clean: the next transaction works.
    await s.transaction((tx) => tx.table(Payments).update('c', { description: 'after' } as Partial<Payment>));
    expect((await s.table(Payments).get('c'))?.description).toBe('after');
  });

  it('in a commit group, a member\'s held writes go with the next member\'s statement; all commit together', async () => {
    const s = await open('h7pg_dw_group');
    const counter = statementCounter();
    counter.start();
    const ids = ['a', 'b', 'c', 'a', 'b'];
    await Promise.all(
      ids.map((id, i) => s.transaction(async (tx) => updateUnread(tx.table(Payments), id, { description: `v${i}` } as Partial<Payment>), { shareCommit: true })),
    );
    const { statements } = counter.stop();
    counter.restore();
    // The first alone (its BEGIN, write and COMMIT in one), then the other four as one group:
    // two of them write rows of earlier members, so the group runs in series, its BEGIN, four
    // writes and COMMIT in one round trip (4 before the eighth round).
    expect(statements).toHaveLength(2);
    expect(statements.filter(isCommit)).toHaveLength(2);
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((id) => s.table(Payments).get(id)));
    // Serial order within the group: the later write of a row wins.
    expect([a?.description, b?.description, c?.description]).toEqual(['v3', 'v4', 'v2']);
  });

  it('statements a body issues together share one round trip, run in issue order, each with its own result', async () => {
    const s = await open('h7pg_dw_together');
    const counter = statementCounter();
    counter.start();
    const out = await s.transaction(async (tx) => {
      const t = tx.table(Payments);
      void updateUnread(t, 'c', { description: 'held' } as Partial<Payment>);
      return Promise.all([
        t.update('a', { description: 'a2' } as Partial<Payment>, { status: 'pending' }),
        t.get('a'), // issued after the update: sees it
        t.get('c'), // after the held write: sees it
        t.update('b', { description: 'no' } as Partial<Payment>, { status: 'settled' }), // CAS fails: undefined
        t.insertOrGet(row('a')), // the holder comes back
      ]);
    });
    const { statements } = counter.stop();
    counter.restore();
    expect(out[0]?.description).toBe('a2');
    expect(out[1]?.description).toBe('a2');
    expect(out[2]?.description).toBe('held');
    expect(out[3]).toBeUndefined();
    expect(out[4]).toMatchObject({ inserted: false, existing: { id: 'a', description: 'a2' } });
    expect(statements).toHaveLength(2); // BEGIN with the five and the held write, COMMIT
  });

  it('reads by id arriving together are one statement; each sees what committed before it was asked', async () => {
    const s = await open('h7pg_gets');
    const counter = statementCounter();
    counter.start();
    const got = await Promise.all(['a', 'b', 'nope', 'c', 'a', 'b', 'c', 'a'].map((id) => s.table(Payments).get(id)));
    const { statements } = counter.stop();
    expect(got.map((p) => p?.id)).toEqual(['a', 'b', undefined, 'c', 'a', 'b', 'c', 'a']);
    // The first goes alone (nothing in flight), the other seven together once it is answered (one
    // statement on its way at a time: twelfth round; the second went alone too before).
    expect(statements).toHaveLength(2);
    expect(statements[1]).toMatch(/WHERE id = ANY/);
    counter.start();
    await s.transaction((tx) => tx.table(Payments).update('a', { description: 'new' } as Partial<Payment>));
    const after = await Promise.all([s.table(Payments).get('a'), s.table(Payments).get('a'), s.table(Payments).get('a')]);
    counter.stop();
    counter.restore();
    expect(after.map((p) => p?.description)).toEqual(['new', 'new', 'new']);
  });
});
