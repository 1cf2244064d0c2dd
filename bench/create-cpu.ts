/**
 * CPU per create, A/B: `POST /api/v1/payments` sent a fixed number of times at a fixed
 * concurrency to the service of each given checkout, on lowdb and on PostgreSQL, the checkouts
 * alternated round after round. On a machine loaded by others the req/s of a timed run follows
 * their load, and so does the CPU per request of a run whose throughput (and thus its group
 * commits' size) moved with it; the same work offered the same way moves far less. Reports the
 * service process's CPU (all threads) and the database backends' CPU per create (bench/cpu.ts).
 *
 *   npx tsx bench/create-cpu.ts /work/wt/base /work/wt/after     (checkouts with node_modules)
 *   CREATE_CPU_N=3000 CREATE_CPU_CONCURRENCY=32 CREATE_CPU_ROUNDS=3 CREATE_CPU_STORES=lowdb,pg
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cpuMeter } from './cpu.js';
import { ADMIN_URL, admin } from './pg-admin.js';

type HttpModule = typeof import('./http.js');
type StoreModule = typeof import('./store.js');

const N = Number(process.env.CREATE_CPU_N ?? 3000);
const CONCURRENCY = Number(process.env.CREATE_CPU_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.CREATE_CPU_ROUNDS ?? 3);
const STORES = (process.env.CREATE_CPU_STORES ?? 'lowdb,pg').split(',');
const WARMUP = 300;

let seq = 0;
async function fire(url: string, secret: string, count: number): Promise<number> {
  let sent = 0;
  let failed = 0;
  const worker = async () => {
    while (sent < count) {
      sent++;
      const r = await fetch(`${url}/api/v1/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 25, currency: 'USD', redirect_url: 'https://shop.example/thanks', reference: `cpu-${process.pid}-${++seq}`, description: 'Bench order', metadata: { channel: 'bench' } }),
      });
      await r.arrayBuffer();
      if (r.status !== 201) failed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return failed;
}

async function one(dir: string, store: string): Promise<string> {
  const http = (await import(path.join(dir, 'bench/http.ts'))) as HttpModule;
  const st = (await import(path.join(dir, 'bench/store.ts'))) as StoreModule;
  const load = os.loadavg()[0]!.toFixed(1);
  if (store === 'lowdb') {
    const seeded = await http.seed(1000, 'settled');
    const svc = await http.spawnChild('serve', [seeded.dataDir]);
    try {
      await fire(svc.url, seeded.secret, WARMUP);
      const meter = cpuMeter(svc.pid);
      await meter.start();
      const t0 = Date.now();
      const failed = await fire(svc.url, seeded.secret, N);
      const c = await meter.stop(N);
      return `lowdb service ${c.server.toFixed(3)} ms/create (${(N / ((Date.now() - t0) / 1000)).toFixed(0)} req/s, ${failed} not 201, load ${load})`;
    } finally {
      await svc.stop();
      await rm(seeded.dataDir, { recursive: true, force: true });
    }
  }
  const seeded = await st.seedPostgres(1000);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'sp-cpu-pg-'));
  const svc = await http.spawnChild('serve', [tmp], { DATABASE_URL: seeded.url });
  try {
    await fire(svc.url, seeded.secret, WARMUP);
    const meter = cpuMeter(svc.pid, { adminUrl: ADMIN_URL, database: seeded.name });
    await meter.start();
    const t0 = Date.now();
    const failed = await fire(svc.url, seeded.secret, N);
    const c = await meter.stop(N);
    return `pg    service ${c.server.toFixed(3)} + db ${c.db.toFixed(3)} = ${(c.server + c.db).toFixed(3)} ms/create (${(N / ((Date.now() - t0) / 1000)).toFixed(0)} req/s, ${failed} not 201, load ${load})`;
  } finally {
    await svc.stop();
    await admin(`DROP DATABASE IF EXISTS "${seeded.name}" WITH (FORCE)`);
    await rm(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) throw new Error('usage: tsx bench/create-cpu.ts <checkout> [<checkout> ...]');
  console.log(`POST /api/v1/payments x ${N}, ${CONCURRENCY} in flight, ${ROUNDS} round(s), 1,000 stored`);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const store of STORES) {
      for (const dir of dirs) console.log(`round ${round} ${path.basename(dir)}: ${await one(path.resolve(dir), store)}`);
    }
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
