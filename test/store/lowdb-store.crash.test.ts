import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { LowdbStore, defineTable } from '../../src/store/index.js';
import { storedTables } from '../helpers/stored.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/write-forever.ts', import.meta.url));
const Rows = defineTable<{ id: string; n: number }>({ name: 'rows', indexes: ['n'] });

/** Runs the fixture on `dir` until `acks` commits were acknowledged, then SIGKILLs it. */
function writeThenKill(dir: string, acks: number, start: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dir, String(start)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: string[] = [];
    readline.createInterface({ input: child.stdout! }).on('line', (id) => {
      acked.push(id);
      // A random moment after that, so the kill lands anywhere in a write.
      if (acked.length === acks) setTimeout(() => child.kill('SIGKILL'), Math.random() * 15);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(acked) : reject(new Error(`fixture exited with ${code}`))));
  });
}

let dir: string;
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('a process killed in the middle of writing (SIGKILL)', () => {
  it('loses no acknowledged commit, leaves a consistent store and no strays after the next open', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sp-store-crash-'));
    const acked: string[] = [];
    let start = 0;
    // Several rounds: each kill lands at a random point of a write, and later ones on a
    // store with many blocks and removals behind it.
    for (const n of [300, 500, 700, 900, 1100, 1300, 1500]) {
      acked.push(...(await writeThenKill(dir, n, start)));
      const store = await LowdbStore.open(dir);
      try {
        const rows = await store.table(Rows).findMany();
        const byId = new Map(rows.map((r) => [r.id, r]));
        // Removed rows are gone by design; every other acknowledged insert must be there.
        expect(acked.filter((id) => !byId.has(id) && !removable(id))).toEqual([]);
        for (const id of acked) if (byId.has(id)) expect(byId.get(id)!.n).toBe(Number(id.slice(1)));
        // What is on disk is exactly what the store loaded, and only what db.json names.
        expect((await storedTables(dir)).tables.rows).toEqual(rows.map((r) => ({ ...r })));
        const manifest = JSON.parse(await readFile(path.join(dir, 'db.json'), 'utf8')) as { log: string; tables: { rows: string[] } };
        expect((await readdir(path.join(dir, 'db.json.blocks'))).sort()).toEqual([...manifest.tables.rows, manifest.log].sort());
        expect((await readdir(dir)).sort()).toEqual(['db.json', 'db.json.blocks']);
        start = Math.max(...rows.map((r) => r.n)) + 1;
      } finally {
        await store.close();
      }
    }
    // Seven rounds of spawn, write, kill and reopen: about 30 s on an idle machine.
  }, 180_000);
});

/** The fixture's transaction k removes r<k-50> when k is a multiple of 97. */
function removable(id: string): boolean {
  return (Number(id.slice(1)) + 50) % 97 === 0;
}
