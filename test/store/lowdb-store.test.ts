import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LowdbStore, StoreConflictError, defineTable, type Row } from '../../src/store/index.js';
import { storedTables } from '../helpers/stored.js';
import { BLOCK_ROWS } from '../../src/store/block-json-file.js';

interface Item extends Row {
  readonly id: string;
  owner: string;
  ref?: string;
  status: string;
  n: number;
  tags?: { a: number };
}
const Items = defineTable<Item>({ name: 'items', unique: [['owner', 'ref']], indexes: ['owner', 'status'] });
const Others = defineTable<{ id: string; v: number }>({ name: 'others' });

let dir: string;
let store: LowdbStore;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sp-store-'));
  store = await LowdbStore.open(dir);
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** What is on disk, read with plain fs and JSON.parse (independent of the store's code). */
const onDisk = () => storedTables<Item>(dir);

const item = (id: string, extra: Partial<Item> = {}): Item => ({ id, owner: 'a', status: 'open', n: 0, ...extra });

describe('persistence', () => {
  it('a committed write is on disk, in JSON, when the transaction resolves', async () => {
    await store.write(Items, (t) => t.insert(item('i1', { ref: 'r1', tags: { a: 1 } })));
    const data = await onDisk();
    expect(data.version).toBe(2);
    expect(data.tables.items).toEqual([{ id: 'i1', owner: 'a', ref: 'r1', status: 'open', n: 0, tags: { a: 1 } }]);
  });

  it('reopening the data dir gives back every row, with its indexes and unique keys', async () => {
    await store.transaction(async (tx) => {
      for (let i = 0; i < 5; i++) await tx.table(Items).insert(item(`i${i}`, { ref: `r${i}`, status: i % 2 ? 'odd' : 'even' }));
      await tx.table(Others).insert({ id: 'o1', v: 7 });
    });
    await store.close();
    store = await LowdbStore.open(dir);
    expect(await store.table(Items).count()).toBe(5);
    expect((await store.table(Items).findMany({ status: 'odd' })).map((r) => r.id)).toEqual(['i1', 'i3']);
    expect(await store.table(Others).get('o1')).toEqual({ id: 'o1', v: 7 });
    await expect(store.write(Items, (t) => t.insert(item('x', { ref: 'r3' })))).rejects.toBeInstanceOf(StoreConflictError);
  });

  it('many concurrent transactions all land on disk (group commit loses nothing)', async () => {
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.write(Items, (t) => t.insert(item(`c${i}`, { n: i })))));
    const rows = (await onDisk()).tables.items!;
    expect(rows).toHaveLength(200);
    expect(new Set(rows.map((r) => r.id)).size).toBe(200);
  });

  it('every acknowledged write is already on disk, even with overlapping rewrites in flight', async () => {
    const misses: string[] = [];
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        // Staggered, so commits land while earlier rewrites are still being written.
        await new Promise((r) => setTimeout(r, i % 7));
        await store.write(Items, (t) => t.insert(item(`d${i}`)));
        const rows = (await onDisk()).tables.items ?? [];
        if (!rows.some((r) => r.id === `d${i}`)) misses.push(`d${i}`);
      }),
    );
    expect(misses).toEqual([]);
    expect((await onDisk()).tables.items).toHaveLength(60);
  });

  it('serialises exactly what JSON.stringify would, also after updates and removals between writes', async () => {
    // More rows than one cached block, then changes in the middle: the block cache must notice.
    await store.transaction(async (tx) => {
      for (let i = 0; i < 1300; i++) await tx.table(Items).insert(item(`b${i}`, { n: i, ref: `r${i}` }));
    });
    await store.write(Items, (t) => t.update('b700', { status: 'changed', tags: { a: 2 } }));
    await store.write(Items, (t) => t.remove('b3'));
    await store.write(Others, (t) => t.insert({ id: 'o', v: 1 }));
    const data = await onDisk();
    const expected = (await store.table(Items).findMany()).map((r) => ({ ...r }));
    expect(data.tables.items).toEqual(expected);
    expect(data.tables.items).toHaveLength(1299);
    expect(data.tables.items!.find((r) => r.id === 'b700')).toMatchObject({ status: 'changed', tags: { a: 2 } });
    expect(data.tables.items!.some((r) => r.id === 'b3')).toBe(false);
    expect(data.tables.others).toEqual([{ id: 'o', v: 1 }]);
  });

  it('writes atomically: no temp files are left behind and every file is private (0600)', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.write(Items, (t) => t.insert(item(`t${i}`)))));
    expect((await readdir(dir)).sort()).toEqual(['db.json', 'db.json.blocks']);
    const blocks = await readdir(path.join(dir, 'db.json.blocks'));
    // Exactly the blocks and the commit log db.json names: replaced ones are gone.
    const manifest = JSON.parse(await readFile(path.join(dir, 'db.json'), 'utf8'));
    expect(blocks.filter((f) => !f.endsWith('.json'))).toEqual([manifest.log]);
    expect(blocks.sort()).toEqual([...Object.values(manifest.tables as Record<string, string[]>).flat(), manifest.log].sort());
    for (const f of ['db.json', ...blocks.map((b) => `db.json.blocks/${b}`)]) {
      expect((await stat(path.join(dir, f))).mode & 0o777).toBe(0o600);
    }
  });
});

describe('block files', () => {
  // Every commit a checkpoint (no commit log), so each one writes blocks.
  beforeEach(async () => {
    await store.close();
    store = await LowdbStore.open(dir, 'db.json', { logBytes: 0 });
  });
  const manifest = async () => JSON.parse(await readFile(path.join(dir, 'db.json'), 'utf8')) as { gen: number; log: string; tables: Record<string, string[]> };
  const inMemory = async () => (await store.table(Items).findMany()).map((r) => ({ ...r }));

  it('a write rewrites only the blocks whose rows changed', async () => {
    await store.transaction(async (tx) => {
      for (let i = 0; i < 2000; i++) await tx.table(Items).insert(item(`k${i}`, { n: i }));
    });
    const before = (await manifest()).tables.items!;
    const n = Math.ceil(2000 / BLOCK_ROWS);
    expect(n).toBeGreaterThan(2);
    expect(before).toHaveLength(n);
    await store.write(Items, (t) => t.update('k100', { status: 'paid' }));
    const afterUpdate = (await manifest()).tables.items!;
    const only = (b: number) => Array.from({ length: n }, (_, i) => i !== b);
    expect(afterUpdate.map((f, i) => f === before[i])).toEqual(only(Math.floor(100 / BLOCK_ROWS)));
    await store.write(Items, (t) => t.insert(item('k2000')));
    const afterInsert = (await manifest()).tables.items!;
    // 2,000 rows do not fill the last block, so the insert rewrites that block alone.
    expect(2000 % BLOCK_ROWS).not.toBe(0);
    expect(afterInsert.map((f, i) => f === afterUpdate[i])).toEqual(only(n - 1));
    expect((await onDisk()).tables.items).toEqual(await inMemory());
    expect((await readdir(path.join(dir, 'db.json.blocks'))).sort()).toEqual([...afterInsert, (await manifest()).log].sort());
  });

  it('random inserts, updates and removals over many commits: disk always equals memory', async () => {
    // A fixed-seed generator, so a failure replays the same way.
    let seed = 42;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    let next = 0;
    await store.transaction(async (tx) => {
      for (; next < 1500; next++) await tx.table(Items).insert(item(`r${next}`, { n: next }));
    });
    for (let round = 0; round < 25; round++) {
      await store.transaction(async (tx) => {
        const t = tx.table(Items);
        for (let k = 0; k < 1 + rand(6); k++) {
          const ids = (await t.findMany()).map((r) => r.id);
          const op = rand(3);
          if (op === 0) await t.insert(item(`r${next++}`, { n: round }));
          else if (op === 1) await t.update(ids[rand(ids.length)]!, { n: 1000 + round, status: `s${round}` });
          else await t.remove(ids[rand(ids.length)]!);
        }
      });
      expect((await onDisk()).tables.items).toEqual(await inMemory());
    }
    const expected = await inMemory();
    await store.close();
    store = await LowdbStore.open(dir);
    expect(await inMemory()).toEqual(expected);
  });

  it('reads the older single-file format and converts it to blocks at open', async () => {
    await store.close();
    const rows = [item('v1', { ref: 'r1' }), item('v2', { status: 'done' })];
    await writeFile(path.join(dir, 'db.json'), JSON.stringify({ version: 1, tables: { items: rows } }));
    store = await LowdbStore.open(dir);
    expect((await manifest()).tables.items).toHaveLength(1);
    expect((await onDisk()).tables.items).toEqual(rows);
    expect(await store.table(Items).findOne({ status: 'done' })).toEqual(rows[1]);
    await expect(store.write(Items, (t) => t.insert(item('v3', { ref: 'r1' })))).rejects.toBeInstanceOf(StoreConflictError);
  });

  it('a crash before the manifest switch leaves the previous state, and its leftovers are removed at the next open', async () => {
    await store.write(Items, (t) => t.insert(item('a1')));
    const gen = (await manifest()).gen;
    await store.close();
    // What a crash part-way through the next write can leave: a block nobody names yet (blocks
    // are written under their final names), one cut short, a block temp file (older versions)
    // and a manifest temp file.
    const blocks = path.join(dir, 'db.json.blocks');
    await writeFile(path.join(blocks, `items.0.${gen + 1}.json`), JSON.stringify([item('a1'), item('ghost')]));
    await writeFile(path.join(blocks, `items.1.${gen + 1}.json`), '[{"id":"torn-in-the-midd');
    await writeFile(path.join(blocks, `items.0.${gen + 2}.json.tmp`), '[{"id":"tor');
    await writeFile(path.join(dir, `db.json.1234.${gen + 1}.tmp`), '{"version":2,');
    store = await LowdbStore.open(dir);
    expect((await store.table(Items).findMany()).map((r) => r.id)).toEqual(['a1']);
    expect((await readdir(blocks)).sort()).toEqual([...(await manifest()).tables.items!, (await manifest()).log].sort());
    expect((await readdir(dir)).sort()).toEqual(['db.json', 'db.json.blocks']);
    await store.write(Items, (t) => t.insert(item('a2')));
    expect((await onDisk()).tables.items!.map((r) => r.id)).toEqual(['a1', 'a2']);
  });

  it('a block file that db.json names but is missing stops the open with a message naming it', async () => {
    await store.write(Items, (t) => t.insert(item('m1')));
    const [file] = (await manifest()).tables.items!;
    await store.close();
    await rm(path.join(dir, 'db.json.blocks', file!));
    await expect(LowdbStore.open(dir)).rejects.toThrow(file!);
    await rm(dir, { recursive: true });
    store = await LowdbStore.open(dir); // for afterEach
  });

  it('after a failed write the next one stores everything in memory (no block goes missing)', async () => {
    // A regular file where the blocks directory belongs makes the first write fail.
    await writeFile(path.join(dir, 'db.json.blocks'), 'in the way');
    await expect(store.write(Items, (t) => t.insert(item('f1')))).rejects.toThrow();
    await rm(path.join(dir, 'db.json.blocks'));
    await store.write(Items, (t) => t.insert(item('f2')));
    expect((await onDisk()).tables.items).toEqual(await inMemory());
    await store.close();
    store = await LowdbStore.open(dir);
    expect((await inMemory()).map((r) => r.id)).toContain('f2');
  });
});

describe('transactions', () => {
  it('rolls back every write of a transaction that throws, in memory and on disk', async () => {
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
    expect((await onDisk()).tables.items).toEqual([item('keep', { n: 1 })]);
    // The rolled-back insert left no index or unique entry behind.
    expect(await store.table(Items).findMany({ owner: 'a' })).toHaveLength(1);
  });

  it('runs transactions one at a time (no lost updates)', async () => {
    await store.write(Others, (t) => t.insert({ id: 'counter', v: 0 }));
    await Promise.all(
      Array.from({ length: 50 }, () =>
        store.write(Others, async (t) => {
          const c = (await t.get('counter'))!;
          await new Promise((r) => setImmediate(r));
          return t.update('counter', { v: c.v + 1 });
        }),
      ),
    );
    expect((await store.table(Others).get('counter'))!.v).toBe(50);
  });
});

// The store's general behaviour (transactions, compare-and-set, unique keys, cursors) is the
// contract suite, run on lowdb and PostgreSQL alike (test/store/store.contract.ts); this file
// keeps what is lowdb's own: files on disk, block rewrites, one writer at a time, sparse indexes.
describe('lowdb indexes', () => {
  beforeEach(async () => {
    await store.transaction(async (tx) => {
      for (let i = 0; i < 25; i++) {
        await tx.table(Items).insert(item(`q${String(i).padStart(2, '0')}`, { owner: i % 5 === 0 ? 'b' : 'a', n: i }));
      }
    });
  });

  it('a sparse index (small set) pages the same way as a scan', async () => {
    const page1 = await store.table(Items).findMany({ owner: 'b' }, { order: 'desc', limit: 2 });
    expect(page1.map((r) => r.n)).toEqual([20, 15]);
    const page2 = await store.table(Items).findMany({ owner: 'b' }, { order: 'desc', limit: 2, after: page1[1]!.id });
    expect(page2.map((r) => r.n)).toEqual([10, 5]);
    const asc = await store.table(Items).findMany({ owner: 'b' }, { after: 'q05' });
    expect(asc.map((r) => r.n)).toEqual([10, 15, 20]);
  });
});
