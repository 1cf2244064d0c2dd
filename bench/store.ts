/**
 * Store benchmark: `POST /api/v1/payments` (throughput and p99) on the service with the
 * PostgreSQL store, with lowdb, and the bare express baseline, at 1,000 and 1,000,000 stored
 * payments (BENCH_STORE_SCALES). PostgreSQL is bulk-loaded with one INSERT ... SELECT over
 * generate_series; lowdb is seeded through its own store API in large transactions, up to
 * BENCH_LOWDB_MAX payments (default 1,000,000): above that the lowdb row says "not run".
 * The stored payments are `settled`, as nearly all of a merchant's history is (the expiry
 * sweeper and the reconciler read only due rows through range indexes, so a pending history
 * would cost them little; `test/payments/due-passes*.test.ts`).
 *
 *   BENCH_ONLY=store npm run bench
 *   TEST_PG_ADMIN_URL=postgres://postgres@127.0.0.1:5432/test   where the bench database is created
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PgStore } from '../src/store/index.js';
import { AccountsService } from '../src/accounts/accounts.js';
import { KeysService } from '../src/keys/keys.js';
import { FxService, loadFxTable } from '../src/fx/rates.js';
import { formatTable, measure, seed, spawnChild, type Measurement } from './http.js';
import { ADMIN_URL, admin } from './pg-admin.js';
import { cpuMeter, type CpuPerRequest } from './cpu.js';


function dbUrl(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

interface PgSeeded {
  url: string;
  name: string;
  secret: string;
  sampleIds: string[];
}

/** A fresh database, migrated, with one merchant and `count` payments loaded in one statement. */
export async function seedPostgres(count: number): Promise<PgSeeded> {
  const name = `pg_h_bench_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = dbUrl(name);
  const store = await PgStore.open(url);
  try {
    const accounts = new AccountsService(store);
    const created = await accounts.create({ name: 'Bench Shop', email: 'bench@example.com' });
    if (!created.ok) throw new Error(created.message);
    const accountId = created.account.id;
    const { secret } = await new KeysService(store).create(accountId, { label: 'bench' });
    const converted = new FxService(loadFxTable()).toStablecoin('25', 'USD');
    if (!converted.ok) throw new Error(converted.message);
    const now = new Date();
    // At a million rows, maintaining seven indexes row by row was most of the load (3-4 minutes
    // on a loaded machine): the secondary indexes are dropped, the rows inserted in one
    // statement, and the indexes built again from their own definitions (a sorted build each).
    const secondary =
      count >= 100_000
        ? (await store.pool.query<{ indexname: string; indexdef: string }>(
            `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'payments' AND indexname <> 'payments_pkey'`,
          )).rows
        : [];
    for (const ix of secondary) await store.pool.query(`DROP INDEX "${ix.indexname}"`);
    await store.pool.query(
      `INSERT INTO payments (id, doc)
       SELECT 'pay_seed_' || g, jsonb_build_object(
         'id', 'pay_seed_' || g, 'accountId', $1::text, 'livemode', true, 'status', 'settled', 'amount', '25', 'currency', 'USD',
         'stablecoinAmount', $2::text, 'rate', $3::text, 'redirectUrl', 'https://shop.example/thanks',
         'reference', 'seed-' || g, 'description', 'Seeded payment', 'metadata', jsonb_build_object('order', g),
         'expiresInMinutes', 1440, 'createdAt', $4::text, 'expiresAt', $5::text, 'updatedAt', $4::text,
         'requestHash', md5('seed-' || g))
       FROM generate_series(1, $6::int) AS g`,
      [
        accountId,
        converted.conversion.stablecoinAmount.toString(),
        converted.conversion.rate,
        now.toISOString(),
        new Date(now.getTime() + 1440 * 60_000).toISOString(),
        count,
      ],
    );
    if (secondary.length > 0) {
      const c = await store.pool.connect();
      try {
        await c.query(`SET maintenance_work_mem = '256MB'`);
        for (const ix of secondary) await c.query(ix.indexdef);
      } finally {
        c.release();
      }
    }
    await store.pool.query('VACUUM ANALYZE payments');
    const step = Math.max(1, Math.floor(count / 1000));
    const sampleIds = Array.from({ length: Math.min(1000, count) }, (_, i) => `pay_seed_${1 + i * step}`);
    return { url, name, secret, sampleIds };
  } finally {
    await store.close();
  }
}

export interface StoreBenchOptions {
  seconds: number;
  scales?: number[];
  lowdbMax?: number;
  /** PostgreSQL pool sizes to measure (DATABASE_POOL_MAX of the service), one service each (BENCH_PG_POOLS). */
  pools?: number[];
  /** Times the whole sequence (baseline, each pool, baseline, lowdb) is repeated per scale (BENCH_STORE_ROUNDS). */
  rounds?: number;
  print?: (line: string) => void;
}

export async function benchStore(opts: StoreBenchOptions): Promise<{ rows: Measurement[]; notes: string[]; table: string }> {
  const print = opts.print ?? ((l: string) => console.log(l));
  const scales = opts.scales ?? [1_000, 1_000_000];
  const lowdbMax = opts.lowdbMax ?? 1_000_000;
  const pools = opts.pools?.length ? opts.pools : [10];
  const rounds = Math.max(1, opts.rounds ?? 1);
  const rows: Measurement[] = [];
  const notes: string[] = [];
  const run = `${Date.now()}`;
  let n = 0;
  const body = () =>
    JSON.stringify({
      amount: 25,
      currency: 'USD',
      redirect_url: 'https://shop.example/thanks',
      reference: `bench-${run}-${++n}`,
      description: 'Bench order',
      metadata: { channel: 'bench' },
    });
  const create = (name: string, url: string, secret: string, stored: number) => (beforeRun: () => Promise<void>) =>
    measure({ name, url: `${url}/api/v1/payments`, method: 'POST', headers: { authorization: `Bearer ${secret}` }, body, seconds: opts.seconds, stored, beforeRun });

  print(`store: POST /api/v1/payments, ${opts.seconds}s per measurement, 64 connections; PostgreSQL (pools ${pools.join(', ')}) vs lowdb vs bare express, ${rounds} round(s)`);
  const baseline = await spawnChild('baseline');
  // Each subject is measured right after its own baseline run (the machine is shared, its load
  // moves): the ratio compares two runs made a few seconds apart.
  // CPU per request (bench/cpu.ts) is reported beside: it hardly moves with the machine's load.
  const against = async (
    stored: number,
    subject: (beforeRun: () => Promise<void>) => Promise<Measurement>,
    pid: number,
    database?: string,
  ) => {
    const baseCpu = cpuMeter(baseline.pid);
    const base = await measure({ name: 'baseline POST', url: `${baseline.url}/baseline`, method: 'POST', body, seconds: opts.seconds, stored, beforeRun: baseCpu.start });
    const bc = await baseCpu.stop(base.requests);
    rows.push(base);
    const meter = cpuMeter(pid, database ? { adminUrl: ADMIN_URL, database } : undefined);
    const m = await subject(meter.start);
    const mc = await meter.stop(m.requests);
    m.ratio = m.requestsPerSecond / base.requestsPerSecond;
    rows.push(m);
    const cpuRatio = bc.server / (mc.server + mc.db);
    cpu.push({ name: m.name, stored, base: bc, subject: mc, cpuRatio });
    print(
      `${m.name}: ${m.requestsPerSecond} req/s p99 ${m.p99Ms} ms = ${m.ratio.toFixed(2)}x baseline (${base.requestsPerSecond} req/s, p99 ${base.p99Ms} ms); ` +
        `CPU ms/req service ${mc.server.toFixed(3)} + db ${mc.db.toFixed(3)} vs baseline ${bc.server.toFixed(3)} = ${cpuRatio.toFixed(2)}x (client ${mc.client.toFixed(3)} / ${bc.client.toFixed(3)})`,
    );
  };
  const cpu: { name: string; stored: number; base: CpuPerRequest; subject: CpuPerRequest; cpuRatio: number }[] = [];
  try {
    for (const stored of scales) {
      print(`PostgreSQL: loading ${stored.toLocaleString('en-US')} payments...`);
      let t0 = Date.now();
      const seededPg = await seedPostgres(stored);
      notes.push(`PostgreSQL: ${stored.toLocaleString('en-US')} payments loaded in ${((Date.now() - t0) / 1000).toFixed(1)}s (INSERT ... SELECT generate_series, then VACUUM ANALYZE)`);
      let seededLow: Awaited<ReturnType<typeof seed>> | undefined;
      if (stored > lowdbMax) {
        notes.push(`lowdb: not run at ${stored.toLocaleString('en-US')} (BENCH_LOWDB_MAX=${lowdbMax.toLocaleString('en-US')})`);
      } else {
        print(`lowdb: seeding ${stored.toLocaleString('en-US')} payments...`);
        t0 = Date.now();
        seededLow = await seed(stored, 'settled');
        notes.push(`lowdb: ${stored.toLocaleString('en-US')} payments seeded in ${((Date.now() - t0) / 1000).toFixed(1)}s through the store`);
      }
      try {
        for (let round = 1; round <= rounds; round++) {
          for (const pool of pools) {
            const dir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-pg-'));
            const svcPg = await spawnChild('serve', [dir], { DATABASE_URL: seededPg.url, DATABASE_POOL_MAX: String(pool) });
            try {
              await against(stored, create(`POST /api/v1/payments (PostgreSQL, pool ${pool})`, svcPg.url, seededPg.secret, stored), svcPg.pid, seededPg.name);
            } finally {
              await svcPg.stop();
              await rm(dir, { recursive: true, force: true });
            }
          }
          if (seededLow) {
            t0 = Date.now();
            const svcLow = await spawnChild('serve', [seededLow.dataDir]);
            if (round === 1) notes.push(`lowdb: service start (reading the data) at ${stored.toLocaleString('en-US')}: ${((Date.now() - t0) / 1000).toFixed(1)}s`);
            try {
              await against(stored, create('POST /api/v1/payments (lowdb)', svcLow.url, seededLow.secret, stored), svcLow.pid);
            } finally {
              await svcLow.stop();
            }
          }
        }
      } finally {
        await admin(`DROP DATABASE IF EXISTS "${seededPg.name}" WITH (FORCE)`);
        if (seededLow) await rm(seededLow.dataDir, { recursive: true, force: true });
      }
      print(formatTable(rows));
    }
  } finally {
    await baseline.stop();
  }
  const cpuTable = [
    'CPU ms per request (server = service or bare express; db = PostgreSQL backends; x = baseline server / (service + db))',
    ...cpu.map(
      (c) =>
        `  ${c.name} @${c.stored.toLocaleString('en-US')}: service ${c.subject.server.toFixed(3)} + db ${c.subject.db.toFixed(3)}` +
        ` vs baseline ${c.base.server.toFixed(3)} = ${c.cpuRatio.toFixed(2)}x; client ${c.subject.client.toFixed(3)} / ${c.base.client.toFixed(3)}`,
    ),
  ];
  const table = [formatTable(rows), '', ...cpuTable, '', ...notes].join('\n');
  return { rows, notes, table };
}
