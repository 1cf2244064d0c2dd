import { afterEach, describe, expect, it } from 'vitest';
import '../../src/service.js';
import { PgStore, type Tx } from '../../src/store/index.js';
import { Payments, type Payment } from '../../src/payments/payments.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';

/**
 * Issue 23, thirteenth round (h13pg), PostgreSQL only: the commit lane (src/store/pg/commit-groups.ts)
 * hands its connection to the next group when one is waiting, instead of giving it back to the
 * pool and checking one out again; it gives it back as soon as nothing is queued.
 */
let db: TestDatabase | undefined;
let store: PgStore | undefined;
afterEach(async () => {
  await store?.close();
  await db?.drop();
  store = undefined;
  db = undefined;
});

const row = (id: string): Payment => ({ id, accountId: 'acct_l', livemode: true, reference: `ref-${id}`, status: 'pending' }) as unknown as Payment;

describe('PostgreSQL commit lane: one connection from group to group', () => {
  it('a group queued while another runs goes on the same connection; the pool has it back once the lane is idle', async () => {
    db = await createDatabase('h13pg_lane');
    const groups: number[] = [];
    store = await PgStore.open(db.url, { poolMax: 4, onGroup: (n) => groups.push(n) });
    const s = store;
    const insert = (id: string, also?: () => void) =>
      s.transaction(async (tx: Tx) => {
        also?.();
        await tx.table(Payments).insert(row(id));
        return id;
      }, { shareCommit: true });
    let acquires = 0;
    s.pool.on('acquire', () => acquires++);
    let second: Array<Promise<string>> = [];
    // The first goes alone; the other five wait and go as one group, and while that group's
    // bodies run, six more arrive: they wait for it and go as the next group.
    const first = Array.from({ length: 6 }, (_, i) =>
      insert(`a${i}`, i === 1 ? () => {
        if (second.length === 0) second = Array.from({ length: 6 }, (_, j) => insert(`b${j}`));
      } : undefined),
    );
    expect(await Promise.all(first)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
    expect(await Promise.all(second)).toEqual(['b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
    expect(groups).toEqual([5, 6]);
    // One checkout for the one alone, one for the two groups (3 when each group checked out its own).
    expect(acquires).toBe(2);
    expect(s.pool.idleCount).toBe(s.pool.totalCount);
    expect(s.pool.waitingCount).toBe(0);
    const r = await s.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM payments');
    expect(r.rows[0]!.n).toBe(12);
  });
});
