/**
 * The relay journal's commit on PostgreSQL, alone of the settle (issue 23, thirteenth round):
 * 1,000 payments and attempts, then 3 × 1,000 journal entries 50 at a time, each with the
 * settle's hash record beside it (`recordTxHashIn`: the payment and the attempt), in the commit
 * lane as the settle runs it. Prints round trips per entry (at the driver), the backends' CPU per
 * entry (/proc of the backends whose command line names the database), this process's CPU per
 * entry (the service's side) and the wall time. Compare trees with the argument:
 *
 *   npx tsx bench/pg-journal-cpu.ts [root=this checkout]
 */
import { readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_URL, admin } from './pg-admin.js';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
await import(path.join(root, 'src/service.ts'));
const { PgStore } = await import(path.join(root, 'src/store/index.ts'));
const { Payments } = await import(path.join(root, 'src/payments/payments.ts'));
const { SettlementAttempts } = await import(path.join(root, 'src/settlement/attempts.ts'));
const { recordTxHashIn } = await import(path.join(root, 'src/settlement/checkout-claim.ts'));
const { storeRelayJournal } = await import(path.join(root, 'src/chain/relay-journal.ts'));
const pg = createRequire(path.join(root, 'package.json'))('pg');
const db = `h13pg_journal_cpu_${randomBytes(3).toString('hex')}`;
await admin(`CREATE DATABASE ${db}`);
const u = new URL(ADMIN_URL);
u.pathname = `/${db}`;
const s = await PgStore.open(u.toString());
const N = 1000;
const pay = (i: number) => ({ id: `pay_${i}`, accountId: 'acct_x', livemode: true, reference: `r${i}`, status: 'processing', description: 'x'.repeat(400), amount: '2000000', currency: 'USD', createdAt: 1, updatedAt: 1, expiresAt: 99999999999 });
const att = (i: number) => ({ id: `att_${i}`, kind: 'checkout', subject: `pay_${i}`, payer: '0x01', nonce: `0x${i.toString(16).padStart(64, '0')}`, validBefore: '99999999999', authorization: {}, signature: '0x02', generation: 1, status: 'open', createdAt: 'x', updatedAt: 'x' });
for (let i = 0; i < N; i += 100) {
  await s.transaction(async (tx: any) => {
    for (let j = i; j < i + 100; j++) {
      await tx.table(Payments).insert(pay(j));
      await tx.table(SettlementAttempts).insert(att(j));
    }
  });
}
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
let trips = 0;
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args: unknown[]) {
  trips++;
  return original.apply(this, args);
};
const journal = storeRelayJournal(s);
const raw = `0x${'ab'.repeat(300)}`;
const c0 = cpu();
const t0 = performance.now();
const own0 = process.cpuUsage();
const trips0 = trips;
let nonce = 0;
for (let round = 0; round < 3; round++) {
  for (let i = 0; i < N; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, k) => {
        const n = nonce++;
        const hash = `0x${n.toString(16).padStart(64, '0')}`;
        return journal.record({ chainId: 31337, relayer: '0xAbC0000000000000000000000000000000000001', nonce: n, hash, raw, owners: [{ attempt: `att_${i + k}`, generation: 1 }] }, (tx: any) =>
          recordTxHashIn(tx, `pay_${i + k}`, { id: `att_${i + k}`, generation: 1 }, hash),
        );
      }),
    );
  }
}
const own = process.cpuUsage(own0);
const n = 3 * N;
console.log(
  `${root}: ${((trips - trips0) / n).toFixed(3)} round trips per entry, backend CPU ${(((cpu() - c0) * 1000) / n).toFixed(3)} ms per entry, this process ${((own.user + own.system) / 1000 / n).toFixed(3)} ms, wall ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
pg.Client.prototype.query = original;
await s.close();
await admin(`DROP DATABASE ${db} WITH (FORCE)`);
