/**
 * Issue 23, eighth round: CPU per lowdb commit of a lone settle's shape (a row of an older block
 * updated, a row inserted in another table; then the row updated again), on a store of 5,000
 * rows of ~700 bytes, one commit at a time, in this process (the store's threads included).
 *
 *   npx tsx bench/lowdb-commit.ts [root=.] [n=100]   (root: a checkout whose src/store is measured)
 *   strace -f -c -e trace=fdatasync,fsync,rename,unlink,openat node --import tsx bench/lowdb-commit.ts <root>: the syscalls
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
const root = path.resolve(process.argv[2] ?? '.');
const { LowdbStore, defineTable } = await import(path.join(root, 'src/store/index.ts'));
const P = defineTable({ name: 'payments', indexes: ['status'] });
const A = defineTable({ name: 'attempts', indexes: ['paymentId'] });
const dir = await mkdtemp(path.join(os.tmpdir(), 'h8cpu-commits-'));
const store = await LowdbStore.open(dir);
const pad = 'x'.repeat(700);
await store.transaction(async (tx: any) => { for (let i = 0; i < 5000; i++) await tx.table(P).insert({ id: `p${i}`, status: 'open', pad }); });
const N = Number(process.argv[3] ?? 200);
const t0 = process.cpuUsage();
for (let k = 0; k < N; k++) {
  await store.transaction(async (tx: any) => { await tx.table(P).update(`p${4000 + k}`, { status: 'processing' }); await tx.table(A).insert({ id: `a${k}`, paymentId: `p${4000 + k}`, pad }); });
  await store.transaction(async (tx: any) => { await tx.table(P).update(`p${4000 + k}`, { status: 'settled', tx: '0x' + 'ab'.repeat(32) }); });
}
const u = process.cpuUsage(t0);
console.log(`${2 * N} commits: process CPU ${((u.user + u.system) / 1000 / (2 * N)).toFixed(3)} ms per commit (user ${(u.user / 1000 / (2 * N)).toFixed(3)}, sys ${(u.system / 1000 / (2 * N)).toFixed(3)})`);
await store.close();
