import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore } from '../../src/store/index.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { readEndpoints } from '../../src/webhooks/outbox.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { isCommit, statementCounter } from '../helpers/pg-statements.js';

/**
 * `shareCommit` transactions on PostgreSQL (src/store/pg/commit-groups.ts): the ones that arrive
 * while one is on its way share one BEGIN … COMMIT; a failing member fails alone; a COMMIT the
 * server refuses runs every member again alone; afterCommit runs only after the real commit.
 *
 * Six transactions started in one tick: the first goes alone (nothing in flight), the other five
 * wait and go as one group when it is done.
 */
let db: TestDatabase | undefined;
let store: PgStore | undefined;
afterEach(async () => {
  await store?.close();
  await db?.drop();
  store = undefined;
  db = undefined;
});

const row = (id: string, reference = `ref-${id}`): Payment => ({ id, accountId: 'acct_g', livemode: true, reference, status: 'pending' }) as unknown as Payment;

async function open(tag: string) {
  db = await createDatabase(tag);
  const groups: number[] = [];
  store = await PgStore.open(db.url, { poolMax: 4, onGroup: (n) => groups.push(n) });
  return { store, groups };
}

async function storedIds(s: PgStore): Promise<string[]> {
  const r = await s.pool.query<{ id: string }>('SELECT id FROM payments ORDER BY id');
  return r.rows.map((x) => x.id);
}

/** Six inserts in one tick; `body(i)` may replace a member's body. Records callbacks and outcomes in order. */
function six(s: PgStore, body: (i: number) => ((tx: Parameters<Parameters<PgStore['transaction']>[0]>[0]) => Promise<string>) | undefined = () => undefined) {
  const events: string[] = [];
  const runs = new Array(6).fill(0);
  const seen: Array<Promise<boolean>> = [];
  const all = Array.from({ length: 6 }, (_, i) =>
    s
      .transaction(
        async (tx) => {
          runs[i]++;
          const own = body(i);
          if (own) return own(tx);
          await tx.table(Payments).insert(row(`p${i}`));
          tx.afterCommit(() => {
            events.push(`cb${i}`);
            // Read outside any transaction at the moment the callback runs: the row is committed.
            // Only the first case awaits it; elsewhere the store may close with the read still
            // queued behind another (one read statement in flight per table), which rejects it.
            seen[i] = s.table(Payments).get(`p${i}`).then((p) => p !== undefined);
            seen[i].catch(() => undefined);
          });
          return `v${i}`;
        },
        { shareCommit: true },
      )
      .then(
        (v) => (events.push(`done${i}`), v),
        (e: unknown) => (events.push(`fail${i}`), Promise.reject(e)),
      ),
  );
  return { all: Promise.allSettled(all), events, runs, seen };
}

describe('PostgreSQL store: transactions that share a commit', () => {
  it('arriving together, they commit as one transaction; afterCommit after the real commit, in member order, before each answer', async () => {
    const { store: s, groups } = await open('cg_ok');
    const counter = statementCounter();
    counter.start();
    const { all, events, seen } = six(s);
    const out = await all;
    const { statements } = counter.stop();
    counter.restore();
    expect(out.map((o) => (o.status === 'fulfilled' ? o.value : o.reason))).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v5']);
    expect(groups).toEqual([5]);
    expect(statements.filter((t) => t === 'COMMIT')).toHaveLength(2); // 1 alone + 1 group, not 6
    expect(await storedIds(s)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    expect(await Promise.all(seen)).toEqual([true, true, true, true, true, true]);
    // Each callback once, before its own answer; the group's callbacks in member order.
    for (let i = 0; i < 6; i++) {
      expect(events.filter((e) => e === `cb${i}`)).toHaveLength(1);
      expect(events.indexOf(`cb${i}`)).toBeLessThan(events.indexOf(`done${i}`));
    }
    const grouped = events.filter((e) => /^cb[1-5]$/.test(e));
    expect(grouped).toEqual(['cb1', 'cb2', 'cb3', 'cb4', 'cb5']);
  });

  it('a member that throws, or whose statement failed, fails alone with its own error; the others commit once', async () => {
    const { store: s } = await open('cg_member');
    const { all, events, runs } = six(s, (i) => {
      if (i === 3)
        return async (tx) => {
          await tx.table(Payments).insert(row('p3'));
          tx.afterCommit(() => events.push('cb3'));
          throw new Error('boom');
        };
      if (i === 4)
        return async (tx) => {
          tx.afterCommit(() => events.push('cb4'));
          // A payload over PostgreSQL's 8000 bytes: the statement fails; the body swallows it.
          await tx.publish('chan', 'x'.repeat(9000)).catch(() => undefined);
          return 'swallowed';
        };
      return undefined;
    });
    const out = await all;
    expect(out[3]).toMatchObject({ status: 'rejected', reason: { message: 'boom' } });
    expect(out[4]).toMatchObject({ status: 'rejected', reason: { code: '22023' } });
    for (const i of [0, 1, 2, 5]) expect(out[i]).toEqual({ status: 'fulfilled', value: `v${i}` });
    expect(await storedIds(s)).toEqual(['p0', 'p1', 'p2', 'p5']);
    expect(events).not.toContain('cb3');
    expect(events).not.toContain('cb4');
    for (const i of [0, 1, 2, 5]) expect(events.filter((e) => e === `cb${i}`)).toHaveLength(1);
    // The failing members ran in the group side by side (which failed as a whole), then in the
    // group in series (which finds who failed), then alone, whose outcome they answer.
    expect(runs[3]).toBe(3);
    expect(runs[4]).toBe(3);
  });

  it('a COMMIT the server refuses commits nothing: every member runs again alone, only the bad one fails', async () => {
    const { store: s, groups } = await open('cg_commit');
    // Checked at COMMIT only (deferred): a row with reference "bad" makes its transaction's COMMIT fail.
    await s.pool.query(`CREATE FUNCTION refuse_bad() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.doc->>'reference' = 'bad' THEN RAISE EXCEPTION 'bad row at commit'; END IF; RETURN NEW; END $$`);
    await s.pool.query(`CREATE CONSTRAINT TRIGGER refuse_bad AFTER INSERT ON payments DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION refuse_bad()`);
    const { all, events, runs } = six(s, (i) =>
      i === 4
        ? async (tx) => {
            await tx.table(Payments).insert(row('p4', 'bad'));
            tx.afterCommit(() => events.push('cb4'));
            return 'v4';
          }
        : undefined,
    );
    const out = await all;
    expect(out[4]).toMatchObject({ status: 'rejected', reason: { message: 'bad row at commit' } });
    for (const i of [0, 1, 2, 3, 5]) expect(out[i]).toEqual({ status: 'fulfilled', value: `v${i}` });
    expect(groups).toEqual([]); // the group never committed
    expect(await storedIds(s)).toEqual(['p0', 'p1', 'p2', 'p3', 'p5']);
    expect(events).not.toContain('cb4');
    for (const i of [0, 1, 2, 3, 5]) expect(events.filter((e) => e === `cb${i}`)).toHaveLength(1);
    expect(runs.slice(1)).toEqual([2, 2, 2, 2, 2]);
  });

  it('side by side: the members\' statements of one step share a round trip; a member touching another\'s row, or scanning, sends the group in series', async () => {
    const { store: s, groups } = await open('cg_side');
    await s.transaction(async (tx) => {
      for (let i = 0; i < 9; i++) await tx.table(Payments).insert(row(`q${i}`));
    });
    const counter = statementCounter();
    counter.start();
    const runs = new Array(9).fill(0);
    // Each member: a compare-and-set whose result it reads, then an insert-or-read: two round trips in series.
    const out = await Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        s.transaction(
          async (tx) => {
            runs[i]++;
            const t = tx.table(Payments);
            const after = await t.update(`q${i}`, { description: `d${i}` } as Partial<Payment>, { status: 'pending' });
            const put = await t.insertOrGet(row(`n${i}`));
            return `${after?.description}/${put.inserted}`;
          },
          { shareCommit: true },
        ),
      ),
    );
    const { statements } = counter.stop();
    counter.restore();
    expect(out).toEqual(Array.from({ length: 9 }, (_, i) => `d${i}/true`));
    expect(groups).toEqual([8]);
    expect(runs).toEqual(new Array(9).fill(1));
    // The first alone: its BEGIN with the update, the insert, the COMMIT. The other eight as one
    // group: BEGIN with the eight updates, the eight inserts, the COMMIT. In series (before the
    // eighth round) the group alone was 18: BEGIN, 16, COMMIT.
    expect(statements).toHaveLength(6);
    expect(statements.filter(isCommit)).toHaveLength(2);

    // Rows shared between members (or a scan): the group runs in series, each member seeing
    // the writes of those before it.
    const runs2 = new Array(5).fill(0);
    const bodies: Array<(tx: Parameters<Parameters<PgStore['transaction']>[0]>[0]) => Promise<unknown>> = [
      async (tx) => tx.table(Payments).update('q0', { description: 'first' } as Partial<Payment>),
      async (tx) => (await tx.table(Payments).update('q1', { description: 'x' } as Partial<Payment>))?.description,
      async (tx) => (await tx.table(Payments).get('q1'))?.description, // q1 is member 1's
      async (tx) => (await tx.table(Payments).update('q2', { description: 'y' } as Partial<Payment>))?.description,
      async (tx) => tx.table(Payments).count({ status: 'pending' }), // a scan
    ];
    const out2 = await Promise.all(
      bodies.map((b, i) =>
        s.transaction(
          async (tx) => {
            runs2[i]++;
            return b(tx);
          },
          { shareCommit: true },
        ),
      ),
    );
    expect(out2.slice(1)).toEqual(['x', 'x', 'y', 18]);
    expect(groups).toEqual([8, 4]);
    expect(runs2).toEqual([1, 2, 2, 2, 2]); // side by side, then in series
  });

  it('side by side with shared reads: members that read one row, or scan a table none of them writes, stay side by side; a scan of a table another member writes does not', async () => {
    const { store: s, groups } = await open('cg_reads');
    await s.transaction(async (tx) => {
      for (let i = 0; i < 7; i++) await tx.table(Payments).insert(row(`r${i}`));
      await tx.table(Payments).insert(row('shared'));
    });
    const counter = statementCounter();
    counter.start();
    // Each member, as a settle's `settled` with a cold endpoint cache (outbox.ts): its own
    // payment's compare-and-set, then the account's endpoints (a read by id and a find, shared by
    // all), then a read of one row every member reads.
    const runs = new Array(7).fill(0);
    const out = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        s.transaction(
          async (tx) => {
            runs[i]++;
            const after = await tx.table(Payments).update(`r${i}`, { description: `s${i}` } as Partial<Payment>, { status: 'pending' });
            const endpoints = await readEndpoints(tx, 'acct_g', true);
            const shared = await tx.table(Payments).get('shared');
            return `${after?.description}/${endpoints.added.length}/${shared?.id}`;
          },
          { shareCommit: true },
        ),
      ),
    );
    const { statements } = counter.stop();
    counter.restore();
    expect(out).toEqual(Array.from({ length: 7 }, (_, i) => `s${i}/0/shared`));
    // The first alone, the other six as one group, each body run once: no roll back, no series.
    expect(groups).toEqual([6]);
    expect(runs).toEqual(new Array(7).fill(1));
    expect(statements.filter((t) => t === 'ROLLBACK')).toEqual([]);

    // A member that scans payments while others write payments: in series, each seeing the
    // writes of those before it (the count sees the descriptions the members before it set).
    const runs2 = new Array(4).fill(0);
    const bodies: Array<(tx: Parameters<Parameters<PgStore['transaction']>[0]>[0]) => Promise<unknown>> = [
      async (tx) => tx.table(Payments).update('r0', { description: 'z' } as Partial<Payment>),
      async (tx) => (await tx.table(Payments).update('r1', { description: 'z' } as Partial<Payment>))?.description,
      async (tx) => (await tx.table(Payments).findMany({ description: 'z' } as Partial<Payment>)).map((p) => p.id).sort(),
      async (tx) => (await tx.table(Payments).update('r2', { description: 'z' } as Partial<Payment>))?.description,
    ];
    const out2 = await Promise.all(
      bodies.map((b, i) =>
        s.transaction(
          async (tx) => {
            runs2[i]++;
            return b(tx);
          },
          { shareCommit: true },
        ),
      ),
    );
    expect(out2.slice(1)).toEqual(['z', ['r0', 'r1'], 'z']);
    expect(groups).toEqual([6, 3]);
    expect(runs2).toEqual([1, 2, 2, 2]); // side by side, then in series
  });
});
