import { mkdir, mkdtemp, readFile, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LowdbStore, defineTable, type Row } from '../../src/store/index.js';
import { storedTables } from '../helpers/stored.js';

interface Item extends Row {
  readonly id: string;
  n: number;
  pad?: string;
}
const Items = defineTable<Item>({ name: 'items', indexes: ['n'] });
const Others = defineTable<{ id: string; v: number }>({ name: 'others' });

let dir: string;
let store: LowdbStore;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sp-commit-log-'));
  store = await LowdbStore.open(dir);
  // 1,000 rows: several blocks, written by the first commit (a checkpoint).
  await store.transaction(async (tx) => {
    for (let i = 0; i < 1000; i++) await tx.table(Items).insert({ id: `i${i}`, n: i });
  });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const manifest = async () => JSON.parse(await readFile(path.join(dir, 'db.json'), 'utf8')) as { log: string; tables: Record<string, string[]> };
const logPath = async () => path.join(dir, 'db.json.blocks', (await manifest()).log);
const inMemory = async () => ({ items: (await store.table(Items).findMany()).map((r) => ({ ...r })), others: (await store.table(Others).findMany()).map((r) => ({ ...r })) });
const reopen = async () => {
  await store.close();
  store = await LowdbStore.open(dir);
};
/** A commit that changes rows in three blocks of one table and adds a row to another. */
const spread = (k: number) =>
  store.transaction(async (tx) => {
    for (const id of ['i3', 'i500', 'i999']) await tx.table(Items).update(id, { n: 10_000 + k });
    await tx.table(Items).insert({ id: `new${k}`, n: k });
    await tx.table(Others).insert({ id: `o${k}`, v: k });
  });

describe('commit log (one file, one fdatasync per commit)', () => {
  it('a commit that changes several blocks of two tables writes one file and syncs it once', async () => {
    const before = store.diskStats();
    await spread(1);
    const after = store.diskStats();
    expect({ syncs: after.syncs - before.syncs, files: after.files - before.files }).toEqual({ syncs: 1, files: 1 });
    // Blocks and manifest untouched; what the commit wrote is in the log, and on disk.
    expect((await storedTables(dir)).tables).toEqual(await inMemory());
  });

  it('reopening replays the logged commits, then folds them into blocks before appending again', async () => {
    for (let k = 0; k < 5; k++) await spread(k);
    const expected = await inMemory();
    const log = await logPath();
    await reopen();
    expect(await inMemory()).toEqual(expected);
    // The open wrote a checkpoint: a new, empty log; the old one is gone.
    expect(await logPath()).not.toBe(log);
    expect((await readFile(await logPath())).length).toBe(0);
    expect(await readdir(path.join(dir, 'db.json.blocks'))).not.toContain(path.basename(log));
    expect((await storedTables(dir)).tables).toEqual(expected);
  });

  for (const damage of ['cut short', 'a flipped byte'] as const) {
    it(`a last record ${damage} (a torn write) is dropped; every earlier commit survives and later ones are durable`, async () => {
      for (let k = 0; k < 3; k++) await spread(k);
      const kept = await inMemory();
      await spread(3);
      await store.close();
      const log = await logPath();
      const bytes = await readFile(log);
      if (damage === 'cut short') await truncate(log, bytes.length - 40);
      else {
        bytes[bytes.length - 30]! ^= 0x01;
        await writeFile(log, bytes);
      }
      store = await LowdbStore.open(dir);
      expect(await inMemory()).toEqual(kept);
      await spread(4);
      const expected = await inMemory();
      await reopen();
      expect(await inMemory()).toEqual(expected);
      expect((await inMemory()).others.map((o) => o.id)).toEqual(['o0', 'o1', 'o2', 'o4']);
    });
  }

  it('a removal, and a log past its size, make the next commit a checkpoint (new log)', async () => {
    await spread(1);
    const log = await logPath();
    await store.write(Items, (t) => t.remove('i10'));
    expect(await logPath()).not.toBe(log);
    expect((await storedTables(dir)).tables).toEqual(await inMemory());
    await store.close();
    store = await LowdbStore.open(dir, 'db.json', { logBytes: 1000 });
    const logs = new Set<string>();
    for (let k = 0; k < 20; k++) {
      await spread(k + 10);
      logs.add(await logPath());
    }
    expect(logs.size).toBeGreaterThan(3);
    expect((await storedTables(dir)).tables).toEqual(await inMemory());
    const expected = await inMemory();
    await reopen();
    expect(await inMemory()).toEqual(expected);
  });

  it('after a failed append nothing more goes to that log: the next commit is a checkpoint and keeps everything', async () => {
    await spread(1);
    // A directory where the log file belongs makes the next append fail.
    const log = await logPath();
    await store.close();
    store = await LowdbStore.open(dir); // a checkpoint at open: a new log, not yet opened by the writer
    const fresh = await logPath();
    expect(fresh).not.toBe(log);
    await rm(fresh);
    await mkdir(fresh);
    await expect(spread(2)).rejects.toThrow();
    await rm(fresh, { recursive: true });
    await spread(3);
    expect(await logPath()).not.toBe(fresh);
    const expected = await inMemory();
    expect(expected.others.map((o) => o.id)).toEqual(['o1', 'o2', 'o3']);
    await reopen();
    expect(await inMemory()).toEqual(expected);
  });
});
