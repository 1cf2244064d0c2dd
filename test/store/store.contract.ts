import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreConflictError, defineTable, rangeAll, rangePages, updateUnread, type Row, type Store } from '../../src/store/index.js';

/**
 * The Store contract (src/store/types.ts), run against every implementation: lowdb
 * (store.contract.lowdb.test.ts) and PostgreSQL (store.contract.pg.test.ts). The concurrency
 * cases are the guarantees the domain modules rely on: no lost update, compare-and-set exactly
 * once, all-or-nothing, a read-check-write that holds under concurrent transactions, and a
 * unique key taken once.
 */

export interface Item extends Row {
  readonly id: string;
  owner: string;
  ref?: string | null;
  status: string;
  n: number;
  tags?: { a: number };
  due?: string;
}
export const Items = defineTable<Item>({
  name: 'contract_items',
  unique: [['owner', 'ref']],
  indexes: ['owner', 'status'],
  ranges: [['status', 'due']],
});
export const Others = defineTable<{ id: string; v: number }>({ name: 'contract_others' });
/** Rows whose `v` the store bumps on every update (TableDef.version). */
export const Versioned = defineTable<{ id: string; at: string; n: number; v?: number }>({ name: 'contract_versioned', version: 'v' });
/** Holds against a budget: the balance check below reads them all, then maybe inserts one. */
export const Holds = defineTable<{ id: string; account: string; amount: number }>({ name: 'contract_holds', indexes: ['account'] });

export interface StoreHarness {
  /** A fresh, empty store. */
  open(): Promise<Store>;
  /** The same store's data opened again (after `close`). */
  reopen(): Promise<Store>;
  cleanup(): Promise<void>;
}

const item = (id: string, extra: Partial<Item> = {}): Item => ({ id, owner: 'a', status: 'open', n: 0, ...extra });

export function storeContract(label: string, harness: () => StoreHarness): void {
  describe(`Store contract: ${label}`, () => {
    let h: StoreHarness;
    let store: Store;

    beforeEach(async () => {
      h = harness();
      store = await h.open();
    });
    afterEach(async () => {
      await store.close();
      await h.cleanup();
    });

    describe('transactions', () => {
      it('rolls back every write of a transaction that throws', async () => {
        await store.write(Items, (t) => t.insert(item('keep', { n: 1 })));
        await expect(
          store.transaction(async (tx) => {
            await tx.table(Items).insert(item('gone'));
            await tx.table(Items).update('keep', { n: 2 });
            await tx.table(Items).remove('keep');
            await tx.table(Others).insert({ id: 'o', v: 1 });
            throw new Error('abort');
          }),
        ).rejects.toThrow('abort');
        expect(await store.table(Items).get('gone')).toBeUndefined();
        expect(await store.table(Items).get('keep')).toMatchObject({ n: 1 });
        expect(await store.table(Others).count()).toBe(0);
        expect(await store.table(Items).findMany({ owner: 'a' })).toHaveLength(1);
      });

      it('a unique violation part-way rolls back the writes before it', async () => {
        await store.write(Items, (t) => t.insert(item('x1', { ref: 'dup' })));
        await expect(
          store.transaction(async (tx) => {
            await tx.table(Items).insert(item('x2', { ref: 'fresh' }));
            await tx.table(Items).insert(item('x3', { ref: 'dup' }));
          }),
        ).rejects.toBeInstanceOf(StoreConflictError);
        expect(await store.table(Items).get('x2')).toBeUndefined();
        await store.write(Items, (t) => t.insert(item('x4', { ref: 'fresh' })));
      });

      it('a conflict caught inside the transaction leaves it usable; its other writes commit', async () => {
        await store.write(Items, (t) => t.insert(item('c1', { ref: 'taken' })));
        const outcome = await store.transaction(async (tx) => {
          await tx.table(Items).insert(item('c2', { ref: 'mine' }));
          const err = await tx.table(Items).insert(item('c3', { ref: 'taken' })).catch((e: unknown) => e);
          await tx.table(Others).insert({ id: 'after', v: 1 });
          return err;
        });
        expect(outcome).toMatchObject({ existingId: 'c1', fields: ['owner', 'ref'] });
        expect(await store.table(Items).get('c2')).toBeDefined();
        expect(await store.table(Others).get('after')).toBeDefined();
      });

      it('readers outside a transaction never see its writes before it commits', async () => {
        let seenDuring: Item | undefined = item('placeholder');
        let countDuring = -1;
        await store.transaction(async (tx) => {
          await tx.table(Items).insert(item('p1', { status: 'new' }));
          expect(await tx.table(Items).get('p1')).toBeDefined();
          expect((await tx.table(Items).findMany({ status: 'new' })).map((r) => r.id)).toEqual(['p1']);
          seenDuring = await store.table(Items).get('p1');
          countDuring = await store.table(Items).count({ status: 'new' });
        });
        expect(seenDuring).toBeUndefined();
        expect(countDuring).toBe(0);
        expect(await store.table(Items).get('p1')).toBeDefined();
      });

      it('afterCommit callbacks run once the writes are visible, never after a rollback, once per commit under retries', async () => {
        const seen: Array<boolean> = [];
        await store.transaction(async (tx) => {
          await tx.table(Items).insert(item('ac1'));
          tx.afterCommit(() => {
            void store.table(Items).get('ac1').then((r) => seen.push(r !== undefined));
          });
        });
        await expect(
          store.transaction(async (tx) => {
            tx.afterCommit(() => seen.push(false));
            throw new Error('no');
          }),
        ).rejects.toThrow('no');
        await store.write(Others, (t) => t.insert({ id: 'ctr', v: 0 }));
        let calls = 0;
        await Promise.all(
          Array.from({ length: 10 }, () =>
            store.transaction(async (tx) => {
              const c = (await tx.table(Others).get('ctr'))!;
              await tx.table(Others).update('ctr', { v: c.v + 1 });
              tx.afterCommit(() => calls++);
            }),
          ),
        );
        await new Promise((r) => setTimeout(r, 50));
        expect(seen).toEqual([true]);
        expect(calls).toBe(10);
      });

      it('a transaction handle cannot write after its transaction ended', async () => {
        let leaked: any;
        await store.transaction(async (tx) => {
          leaked = tx.table(Items);
        });
        await expect(leaked.insert(item('late'))).rejects.toThrow(/already finished/);
        expect(await store.table(Items).get('late')).toBeUndefined();
      });

      it('an insert answers the row as given, its keys in the order given (PostgreSQL does not send it back)', async () => {
        // jsonb keeps keys shortest first: a doc read back over the wire would answer n, id, ref, tags.
        const input = { id: 'k1', tags: { zz: 1, a: 2 }, ref: 'r', n: 3 } as unknown as Item;
        const got = await store.write(Items, (t) => t.insert(input));
        expect(Object.keys(got)).toEqual(['id', 'tags', 'ref', 'n']);
        expect(Object.keys(got.tags as object)).toEqual(['zz', 'a']);
        expect(got).toEqual(input);
        expect(Object.isFrozen(got)).toBe(true);
      });

      it('rows handed out are frozen copies: changing them cannot change the store', async () => {
        const input = item('f1', { tags: { a: 1 } });
        const stored = await store.write(Items, (t) => t.insert(input));
        input.n = 99;
        expect(() => {
          (stored as { n: number }).n = 5;
        }).toThrow();
        expect(() => {
          (stored.tags as { a: number }).a = 5;
        }).toThrow();
        const read = (await store.table(Items).get('f1'))!;
        expect(read.n).toBe(0);
        expect(Object.isFrozen(read)).toBe(true);
      });

      it('committed writes survive closing and reopening the store', async () => {
        await store.transaction(async (tx) => {
          for (let i = 0; i < 5; i++) await tx.table(Items).insert(item(`i${i}`, { ref: `r${i}`, status: i % 2 ? 'odd' : 'even' }));
          await tx.table(Others).insert({ id: 'o1', v: 7 });
        });
        await store.close();
        store = await h.reopen();
        expect(await store.table(Items).count()).toBe(5);
        expect((await store.table(Items).findMany({ status: 'odd' })).map((r) => r.id)).toEqual(['i1', 'i3']);
        expect(await store.table(Others).get('o1')).toEqual({ id: 'o1', v: 7 });
        await expect(store.write(Items, (t) => t.insert(item('x', { ref: 'r3' })))).rejects.toBeInstanceOf(StoreConflictError);
      });

      it('a closed store refuses transactions', async () => {
        await store.close();
        await expect(store.write(Items, (t) => t.insert(item('z')))).rejects.toThrow(/closed/);
        store = await h.reopen();
      });
    });

    describe('concurrency', () => {
      it('no lost update: 40 concurrent read-modify-write increments all count', async () => {
        await store.write(Others, (t) => t.insert({ id: 'counter', v: 0 }));
        await Promise.all(
          Array.from({ length: 40 }, () =>
            store.write(Others, async (t) => {
              const c = (await t.get('counter'))!;
              await new Promise((r) => setImmediate(r));
              return t.update('counter', { v: c.v + 1 });
            }),
          ),
        );
        expect((await store.table(Others).get('counter'))!.v).toBe(40);
      });

      it('a balance check holds under concurrency: 30 transactions against a budget of 10 place exactly 10 holds', async () => {
        const budget = 10;
        const placed = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            store.write(Holds, async (t) => {
              const held = (await t.findMany({ account: 'acct' })).reduce((s, r) => s + r.amount, 0);
              await new Promise((r) => setImmediate(r));
              if (held + 1 > budget) return false;
              await t.insert({ id: `h${i}`, account: 'acct', amount: 1 });
              return true;
            }),
          ),
        );
        expect(placed.filter(Boolean)).toHaveLength(budget);
        expect(await store.table(Holds).count({ account: 'acct' })).toBe(budget);
      });

      it('check-then-insert on a unique key: concurrent callers all end with the one row', async () => {
        const ids = await Promise.all(
          Array.from({ length: 15 }, (_, i) =>
            store.write(Items, async (t) => {
              const existing = await t.findOne({ owner: 'a', ref: 'order-1' });
              if (existing) return existing.id;
              await new Promise((r) => setImmediate(r));
              return (await t.insert(item(`k${i}`, { ref: 'order-1' }))).id;
            }),
          ),
        );
        expect(new Set(ids).size).toBe(1);
        expect(await store.table(Items).count({ owner: 'a' })).toBe(1);
      });

      it('guarded by unique keys (weaker isolation allowed): concurrent check-then-insert still ends with the one row, every caller reading it', async () => {
        const ids = await Promise.all(
          Array.from({ length: 15 }, (_, i) =>
            store.transaction(
              async (tx) => {
                const t = tx.table(Items);
                const existing = await t.findOne({ owner: 'g', ref: 'order-1' });
                if (existing) return existing.id;
                await new Promise((r) => setImmediate(r));
                const mine = await t.insert(item(`g${i}`, { owner: 'g', ref: 'order-1' }));
                // A second write after the contested one: it must vanish with it when the key was lost.
                await tx.table(Others).insert({ id: `other-of-g${i}`, v: i });
                return mine.id;
              },
              { guardedByUniqueKeys: true },
            ),
          ),
        );
        expect(new Set(ids).size).toBe(1);
        expect(await store.table(Items).count({ owner: 'g' })).toBe(1);
        // Only the winner's second write is there: the losers' bodies ran again and wrote nothing.
        expect((await store.table(Others).findMany()).map((o) => o.id)).toEqual([`other-of-${ids[0]}`]);
      });

      it('blind concurrent inserts of one unique key: one wins, the rest get a conflict naming it', async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 15 }, (_, i) => store.write(Items, (t) => t.insert(item(`b${i}`, { ref: 'same' })))),
        );
        const won = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<Item>[];
        expect(won).toHaveLength(1);
        for (const r of results) {
          if (r.status === 'rejected') {
            expect(r.reason).toBeInstanceOf(StoreConflictError);
            expect(r.reason).toMatchObject({ existingId: won[0]!.value.id });
          }
        }
      });

      it('insertOrGet: inserts, or hands back the holder of the id or unique key; concurrent callers all end with the one row', async () => {
        const first = await store.insertOrGet(Items, item('g1', { ref: 'r-g', n: 1 }));
        expect(first).toMatchObject({ inserted: true, row: { id: 'g1', n: 1 } });
        expect(Object.isFrozen((first as { row: Item }).row)).toBe(true);
        expect(await store.insertOrGet(Items, item('g2', { ref: 'r-g', n: 2 }))).toMatchObject({ inserted: false, existing: { id: 'g1', n: 1 } });
        expect(await store.insertOrGet(Items, item('g1', { ref: 'other', n: 3 }))).toMatchObject({ inserted: false, existing: { id: 'g1' } });
        // Inside a transaction: a taken key does not fail it, its other writes commit.
        await store.transaction(async (tx) => {
          const got = await tx.table(Items).insertOrGet(item('g3', { ref: 'r-g' }));
          expect(got).toMatchObject({ inserted: false, existing: { id: 'g1' } });
          await tx.table(Others).insert({ id: 'after-g', v: 1 });
        });
        expect(await store.table(Others).get('after-g')).toBeDefined();
        const results = await Promise.all(Array.from({ length: 15 }, (_, i) => store.insertOrGet(Items, item(`c${i}`, { ref: 'race' }))));
        const winners = results.filter((r) => r.inserted);
        expect(winners).toHaveLength(1);
        const id = (winners[0] as { row: Item }).row.id;
        for (const r of results) if (!r.inserted) expect(r.existing.id).toBe(id);
        expect(await store.table(Items).count({ ref: 'race' })).toBe(1);
      });

      it('publish reaches subscribers once the transaction commits, never on rollback', async () => {
        const got: Array<string | undefined> = [];
        const sub = await store.subscribe('contract_channel', (p) => got.push(p));
        expect(sub.live).toBe(true);
        await store.transaction(async (tx) => {
          await tx.publish('contract_channel', 'one');
          await tx.table(Others).insert({ id: 'pub-1', v: 1 });
        });
        await expect(
          store.transaction(async (tx) => {
            await tx.publish('contract_channel', 'never');
            throw new Error('rollback');
          }),
        ).rejects.toThrow('rollback');
        for (let i = 0; i < 50 && !got.includes('one'); i++) await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, 100));
        expect(got).toEqual(['one']);
        await sub.close();
      });

      it('a transfer between two rows is all-or-nothing: concurrent moves keep the total', async () => {
        await store.write(Others, async (t) => {
          await t.insert({ id: 'left', v: 100 });
          await t.insert({ id: 'right', v: 100 });
        });
        await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            store.transaction(async (tx) => {
              const t = tx.table(Others);
              // Alternating direction; rows always taken in the same order (no deadlock waits).
              const d = i % 2 ? 3 : -3;
              const a = (await t.get('left'))!;
              const b = (await t.get('right'))!;
              await t.update(a.id, { v: a.v - d });
              if (i % 5 === 0) throw new Error('half-way');
              await t.update(b.id, { v: b.v + d });
            }).catch(() => undefined),
          ),
        );
        const rows = await store.table(Others).findMany();
        expect(rows.reduce((s, r) => s + r.v, 0)).toBe(200);
      });
    });

    describe('compare-and-set', () => {
      it('updates only while the expectation holds, exactly once under contention', async () => {
        await store.write(Items, (t) => t.insert(item('cas', { status: 'pending' })));
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.write(Items, (t) => t.update('cas', { status: 'done', n: i }, { status: 'pending' }))),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.find(Boolean)!;
        expect(await store.table(Items).get('cas')).toEqual(winner);
        expect(await store.write(Items, (t) => t.update('missing', { n: 1 }))).toBeUndefined();
      });

      it('keeps the status index in step with updates; an undefined patch field removes it', async () => {
        await store.write(Items, (t) => t.insert(item('s1', { status: 'pending', ref: 'r' })));
        await store.write(Items, (t) => t.update('s1', { status: 'settled' }, { status: 'pending' }));
        expect(await store.table(Items).findMany({ status: 'pending' })).toEqual([]);
        expect((await store.table(Items).findMany({ status: 'settled' })).map((r) => r.id)).toEqual(['s1']);
        const next = await store.write(Items, (t) => t.update('s1', { ref: undefined }));
        expect(next?.ref).toBeUndefined();
        expect((await store.table(Items).get('s1'))?.ref).toBeUndefined();
        expect(await store.table(Items).findOne({ owner: 'a', ref: 'r' })).toBeUndefined();
      });

      it('updateWithBefore gives the row before and after (a removed field too, an earlier write of the same transaction in before), exactly once under contention', async () => {
        await store.write(Items, (t) => t.insert(item('wb', { status: 'pending', ref: 'r', n: 1 })));
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            store.write(Items, async (t) => {
              const r = await t.updateWithBefore('wb', { status: 'done', n: 10 + i, ref: undefined }, { status: 'pending' });
              return r && { ...r, i };
            }),
          ),
        );
        const won = results.filter((r) => r !== undefined);
        expect(won).toHaveLength(1);
        const { before, after, i } = won[0]!;
        expect(before).toEqual(item('wb', { status: 'pending', ref: 'r', n: 1 }));
        expect(after).toEqual(item('wb', { status: 'done', n: 10 + i }));
        expect(await store.table(Items).get('wb')).toEqual(after);
        const twice = await store.transaction(async (tx) => {
          const t = tx.table(Items);
          await t.update('wb', { n: 50 });
          return t.updateWithBefore('wb', { status: 'again' }, { status: 'done' });
        });
        expect(twice?.before.n).toBe(50);
        expect(twice?.after).toEqual(item('wb', { status: 'again', n: 50 }));
        expect(await store.write(Items, (t) => t.updateWithBefore('wb', { n: 1 }, { status: 'pending' }))).toBeUndefined();
        expect(await store.write(Items, (t) => t.updateWithBefore('missing', { n: 1 }))).toBeUndefined();
      });
    });

    describe('row versions (TableDef.version)', () => {
      it('every update bumps the version, whatever the patch says: a compare-and-set on the version read sees two writes with one timestamp', async () => {
        const at = '2026-11-29T10:00:00.000Z';
        await store.write(Versioned, (t) => t.insert({ id: 'v1', at, n: 0, v: 0 }));
        const read = (await store.table(Versioned).get('v1'))!;
        // Another write in the same millisecond: `at` is the same, the version is not.
        expect(await store.write(Versioned, (t) => t.update('v1', { at, n: 1, v: 0 }))).toEqual({ id: 'v1', at, n: 1, v: 1 });
        expect(await store.write(Versioned, (t) => t.update('v1', { n: 2 }, { at: read.at }))).toMatchObject({ n: 2, v: 2 });
        expect(await store.write(Versioned, (t) => t.update('v1', { n: 3 }, { at: read.at, v: read.v! }))).toBeUndefined();
        // Within one transaction, with the row before, and unread: each write counts.
        const r = await store.transaction(async (tx) => {
          const t = tx.table(Versioned);
          await updateUnread(t, 'v1', { n: 4 });
          return t.updateWithBefore('v1', { n: 5 }, { v: 3 });
        });
        expect(r).toEqual({ before: { id: 'v1', at, n: 4, v: 3 }, after: { id: 'v1', at, n: 5, v: 4 } });
        // A row written without it counts from 0.
        await store.write(Versioned, (t) => t.insert({ id: 'v2', at, n: 0 }));
        expect(await store.write(Versioned, (t) => t.update('v2', { n: 1 }))).toEqual({ id: 'v2', at, n: 1, v: 1 });
        expect(await store.table(Versioned).get('v1')).toEqual({ id: 'v1', at, n: 5, v: 4 });
      });

      it('a row written without a version matches version 0 in a compare-and-set, and no longer once written (h12truth)', async () => {
        const at = '2026-11-29T10:00:00.000Z';
        await store.write(Versioned, (t) => t.insert({ id: 'v3', at, n: 0 }));
        const read = (await store.table(Versioned).get('v3'))!;
        expect(read.v).toBeUndefined();
        // Another write with the same timestamp: the read's version, absent, counts as 0; the row's is 1 now.
        await store.write(Versioned, (t) => t.update('v3', { at, n: 1 }));
        expect(await store.write(Versioned, (t) => t.update('v3', { n: 2 }, { at: read.at, v: read.v ?? 0 }))).toBeUndefined();
        await store.write(Versioned, (t) => t.insert({ id: 'v4', at, n: 0 }));
        expect(await store.write(Versioned, (t) => t.update('v4', { n: 1 }, { at, v: 0 }))).toEqual({ id: 'v4', at, n: 1, v: 1 });
        expect(await store.table(Versioned).findMany({ v: 0 })).toEqual([]);
      });
    });

    describe('unique constraints', () => {
      it('rejects a duplicate id and a duplicate (owner, ref), naming the holder', async () => {
        await store.write(Items, (t) => t.insert(item('u1', { ref: 'R' })));
        await expect(store.write(Items, (t) => t.insert(item('u1')))).rejects.toMatchObject({ fields: ['id'] });
        const err = await store.write(Items, (t) => t.insert(item('u2', { ref: 'R' }))).catch((e) => e);
        expect(err).toBeInstanceOf(StoreConflictError);
        expect(err).toMatchObject({ table: 'contract_items', fields: ['owner', 'ref'], existingId: 'u1' });
      });

      it('the same ref under another owner, and rows without a ref or with a null ref, are allowed', async () => {
        await store.write(Items, async (t) => {
          await t.insert(item('v1', { ref: 'R' }));
          await t.insert(item('v2', { ref: 'R', owner: 'b' }));
          await t.insert(item('v3'));
          await t.insert(item('v4'));
          await t.insert(item('v5', { ref: null }));
          await t.insert(item('v6', { ref: null }));
        });
        expect(await store.table(Items).count()).toBe(6);
        expect((await store.table(Items).findMany({ ref: null })).map((r) => r.id)).toEqual(['v5', 'v6']);
      });

      it('an update may not take a key another row holds; freeing a key makes it available', async () => {
        await store.write(Items, async (t) => {
          await t.insert(item('w1', { ref: 'A' }));
          await t.insert(item('w2', { ref: 'B' }));
        });
        const err = await store.write(Items, (t) => t.update('w2', { ref: 'A' })).catch((e) => e);
        expect(err).toBeInstanceOf(StoreConflictError);
        expect(err).toMatchObject({ existingId: 'w1' });
        await store.write(Items, async (t) => {
          await t.update('w1', { ref: 'C' });
          await t.insert(item('w3', { ref: 'A' }));
        });
        expect((await store.table(Items).findOne({ owner: 'a', ref: 'A' }))!.id).toBe('w3');
        expect((await store.table(Items).findOne({ owner: 'a', ref: 'C' }))!.id).toBe('w1');
        await store.write(Items, (t) => t.remove('w3'));
        await store.write(Items, (t) => t.insert(item('w4', { ref: 'A' })));
      });
    });

    describe('range reads (findRange)', () => {
      it('returns only rows with the field at most the bound, in (field, id) order, a page at a time', async () => {
        await store.transaction(async (tx) => {
          // Inserted out of order; two share a due time (the id breaks the tie); one has no due.
          const dues = ['2026-01-05', '2026-01-01', '2026-01-03', '2026-01-03', '2026-01-09', '2026-01-02'];
          for (const [i, d] of dues.entries()) await tx.table(Items).insert(item(`r${i}`, { status: 'open', due: `${d}T00:00:00.000Z` }));
          await tx.table(Items).insert(item('r-none', { status: 'open' }));
          await tx.table(Items).insert(item('r-closed', { status: 'closed', due: '2026-01-01T00:00:00.000Z' }));
        });
        const atMost = '2026-01-05T00:00:00.000Z';
        const first = await store.table(Items).findRange({ status: 'open' }, { field: 'due', atMost, limit: 3 });
        expect(first.map((r) => r.id)).toEqual(['r1', 'r5', 'r2']);
        const last = first[2]!;
        const second = await store.table(Items).findRange({ status: 'open' }, { field: 'due', atMost, limit: 3, after: { value: last.due, id: last.id } });
        expect(second.map((r) => r.id)).toEqual(['r3', 'r0']);
        const unbounded = await store.table(Items).findRange({ status: 'open' }, { field: 'due', limit: 10 });
        expect(unbounded.map((r) => r.id)).toEqual(['r1', 'r5', 'r2', 'r3', 'r0', 'r4']);
        // Inside a transaction too.
        const inTx = await store.transaction((tx) => tx.table(Items).findRange({ status: 'open' }, { field: 'due', atMost: '2026-01-01T00:00:00.000Z', limit: 10 }));
        expect(inTx.map((r) => r.id)).toEqual(['r1']);
      });

      it('refuses a range the table did not declare (PostgreSQL would have no index for it)', async () => {
        await expect(store.table(Items).findRange({ owner: 'a' }, { field: 'due', limit: 1 })).rejects.toThrow(/not declared/);
        await expect(store.table(Items).findRange({ status: 'open', owner: 'a' }, { field: 'due', limit: 1 })).rejects.toThrow(/exactly one/);
      });

      it('rangePages reads page after page from the last row of the one before; rangeAll gathers them (issue 22: the one paged loop)', async () => {
        await store.transaction(async (tx) => {
          // Seven rows due by the bound: pages of 3 give 3, 3, 1; two share a due time (the id orders them).
          const dues = ['07', '01', '03', '03', '05', '02', '06', '09'];
          for (const [i, d] of dues.entries()) await tx.table(Items).insert(item(`p${i}`, { status: 'open', due: `2026-02-${d}T00:00:00.000Z` }));
          await tx.table(Items).insert(item('p-closed', { status: 'closed', due: '2026-02-01T00:00:00.000Z' }));
        });
        const range = { field: 'due', atMost: '2026-02-07T00:00:00.000Z', limit: 3 };
        const pages: string[][] = [];
        for await (const page of rangePages(store.table(Items), { status: 'open' }, range)) pages.push(page.map((r) => r.id));
        expect(pages).toEqual([['p1', 'p5', 'p2'], ['p3', 'p4', 'p6'], ['p0']]);
        expect((await rangeAll(store.table(Items), { status: 'open' }, range)).map((r) => r.id)).toEqual(['p1', 'p5', 'p2', 'p3', 'p4', 'p6', 'p0']);
        // A full last page ends on the empty read after it, which yields nothing.
        const whole: string[][] = [];
        for await (const page of rangePages(store.table(Items), { status: 'open' }, { ...range, limit: 7 })) whole.push(page.map((r) => r.id));
        expect(whole).toEqual([['p1', 'p5', 'p2', 'p3', 'p4', 'p6', 'p0']]);
        // A starting cursor is a lower bound (a window "since"): the first page starts after it.
        const since = await rangeAll(store.table(Items), { status: 'open' }, { ...range, after: { value: '2026-02-03T00:00:00.000Z', id: '' } });
        expect(since.map((r) => r.id)).toEqual(['p2', 'p3', 'p4', 'p6', 'p0']);
        // Changing a page's rows before asking for the next one (what a sweep does) loses none.
        const swept: string[] = [];
        for await (const page of rangePages(store.table(Items), { status: 'open' }, { field: 'due', limit: 2 })) {
          for (const r of page) await store.write(Items, (t) => t.update(r.id, { status: 'closed' }));
          swept.push(...page.map((r) => r.id));
        }
        expect(swept).toEqual(['p1', 'p5', 'p2', 'p3', 'p4', 'p6', 'p0', 'p7']);
      });
    });

    describe('queries and cursors', () => {
      beforeEach(async () => {
        await store.transaction(async (tx) => {
          for (let i = 0; i < 25; i++) {
            await tx.table(Items).insert(item(`q${String(i).padStart(2, '0')}`, { owner: i % 5 === 0 ? 'b' : 'a', n: i }));
          }
        });
      });

      it('returns rows in insertion order, newest first with order desc, and honours limit', async () => {
        const asc = await store.table(Items).findMany({ owner: 'a' }, { limit: 3 });
        expect(asc.map((r) => r.n)).toEqual([1, 2, 3]);
        const desc = await store.table(Items).findMany({ owner: 'a' }, { order: 'desc', limit: 3 });
        expect(desc.map((r) => r.n)).toEqual([24, 23, 22]);
        expect(await store.table(Items).findMany({}, { limit: 0 })).toEqual([]);
      });

      it('an update keeps a row in its place', async () => {
        await store.write(Items, (t) => t.update('q03', { n: 300 }));
        expect((await store.table(Items).findMany({ owner: 'a' }, { limit: 3 })).map((r) => r.n)).toEqual([1, 2, 300]);
      });

      it('pages with an `after` cursor without skipping or repeating a row', async () => {
        const seen: number[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await store.table(Items).findMany({ owner: 'a' }, { order: 'desc', limit: 7, after });
          if (page.length === 0) break;
          seen.push(...page.map((r) => r.n));
          after = page.at(-1)!.id;
        }
        expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => 24 - i).filter((n) => n % 5 !== 0));
        const asc = await store.table(Items).findMany({ owner: 'b' }, { after: 'q05' });
        expect(asc.map((r) => r.n)).toEqual([10, 15, 20]);
      });

      it('an unknown cursor yields nothing; non-indexed fields and the id filter too', async () => {
        expect(await store.table(Items).findMany({}, { after: 'nope' })).toEqual([]);
        expect((await store.table(Items).findMany({ n: 7 })).map((r) => r.id)).toEqual(['q07']);
        expect((await store.table(Items).findMany({ id: 'q08', owner: 'a' })).map((r) => r.n)).toEqual([8]);
        expect(await store.table(Items).findOne({ owner: 'zzz' })).toBeUndefined();
        expect(await store.table(Items).count({ owner: 'b' })).toBe(5);
        expect(await store.table(Items).count()).toBe(25);
      });

      it('inside a transaction, reads see its own inserts, updates and removals in order', async () => {
        await store.transaction(async (tx) => {
          const t = tx.table(Items);
          await t.remove('q24');
          await t.update('q23', { owner: 'b' });
          await t.insert(item('new1', { n: 100 }));
          expect((await t.findMany({ owner: 'a' }, { order: 'desc', limit: 3 })).map((r) => r.n)).toEqual([100, 22, 21]);
          expect((await t.findMany({ owner: 'b' }, { order: 'desc', limit: 2 })).map((r) => r.n)).toEqual([23, 20]);
          expect(await t.count({ owner: 'a' })).toBe(19);
          expect((await t.findMany({ owner: 'a' }, { after: 'q22' })).map((r) => r.n)).toEqual([100]);
        });
        expect((await store.table(Items).findMany({ owner: 'a' }, { order: 'desc', limit: 2 })).map((r) => r.n)).toEqual([100, 22]);
      });

      it('stores JSON faithfully: nested objects, unicode, numbers and booleans', async () => {
        const row = { id: 'j1', v: 1.5, nested: { deep: [1, 'two', { three: true }] }, text: 'žluťoučký 🐎 "quoted"' };
        await store.write(Others, (t) => t.insert(row as never));
        expect(await store.table(Others).get('j1')).toEqual(row);
      });
    });
  });
}
