/**
 * The PostgreSQL backends' CPU per settle-shaped transaction in commit groups (issue 23, tenth
 * round): 1,000 payments, then 3 × 1,000 transactions 50 at a time with `shareCommit`, each the
 * claim's shape (a compare-and-set with the row before, then a held update). CPU from /proc of the
 * backends whose command line names the database, and this process's own (the service's side,
 * eleventh round). Compare trees with the argument:
 *
 *   npx tsx bench/pg-group-cpu.ts [root=this checkout]
 */
import { readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_URL, admin } from './pg-admin.js';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
await import(path.join(root, 'src/service.ts'));
const { PgStore, updateUnread } = await import(path.join(root, 'src/store/index.ts'));
const { Payments } = await import(path.join(root, 'src/payments/payments.ts'));
const db = `h10pg_group_cpu_${randomBytes(3).toString('hex')}`;
await admin(`CREATE DATABASE ${db}`);
const u = new URL(ADMIN_URL);
u.pathname = `/${db}`;
const s = await PgStore.open(u.toString());
const N = 1000;
const mk = (i: number) => ({ id: `pay_${i}`, accountId: 'acct_x', livemode: true, reference: `r${i}`, status: 'pending', description: 'x'.repeat(400), amount: '2000000', currency: 'USD', createdAt: 1, updatedAt: 1, expiresAt: 99999999999 });
for (let i = 0; i < N; i += 100) await s.transaction(async (tx: any) => { for (let j = i; j < i + 100; j++) await tx.table(Payments).insert(mk(j)); });
function cpu(): number {
  let t = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (!st.includes('(postgres)') || !readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(` ${db} `)) continue;
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      t += (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      // gone
    }
  }
  return t;
}
const c0 = cpu();
const t0 = performance.now();
// This process's own CPU too (eleventh round): the service's side of the same transactions.
const own0 = process.cpuUsage();
for (let round = 0; round < 3; round++) {
  for (let i = 0; i < N; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, k) =>
        s.transaction(async (tx: any) => {
          const t = tx.table(Payments);
          const id = `pay_${i + k}`;
          const r = await t.updateWithBefore(id, { status: 'processing', updatedAt: 2 + round, attemptedBy: ['me'] }, { status: 'pending' });
          void updateUnread(t, id, { txHash: '0xabc', status: 'pending', updatedAt: 3 + round }, { status: 'processing' });
          return r;
        }, { shareCommit: true }),
      ),
    );
  }
}
const own = process.cpuUsage(own0);
console.log(`${root}: backend CPU ${(((cpu() - c0) * 1000) / (3 * N)).toFixed(3)} ms per transaction, this process ${((own.user + own.system) / 1000 / (3 * N)).toFixed(3)} ms, wall ${((performance.now() - t0) / 1000).toFixed(1)} s`);
await s.close();
await admin(`DROP DATABASE ${db} WITH (FORCE)`);
