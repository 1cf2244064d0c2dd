/**
 * Settlement through the route a customer uses, with the service in its own process
 * (issue 23, point 2): `src/main.ts` is spawned with the embedded anvil (and, for the second
 * run, PostgreSQL), and this process is only the client. So the service's CPU per settlement
 * (from /proc, the service process alone) is reported apart from the client's and anvil's.
 *
 * Per store: N payments created over HTTP, their authorizations issued
 * (`POST /api/checkout/:id/authorization`) and signed by one funded payer (not measured), then
 * N `POST /api/checkout/:id/settle` at once (the burst); then N more started at a steady rate
 * (latency at an offered load); then, on the same chain in the same run, N bare ERC-20
 * transfers from one account with batched JSON-RPC (the chain's ceiling for one sender).
 *
 * The service's CPU is reported per phase (issue 23 point 2): the burst's CPU per settlement is
 * the per-settlement work the target (≤ 3 ms) is read on; the paced phase's also carries the
 * timers of a service waiting between requests; each phase is read one quiet second after it
 * ends, so the work its settlements leave behind counts in it. The idle rate (CPU ms per second
 * with no request, measured for BENCH_IDLE_SECONDS=3 after the paced phase's quiet second) is
 * reported on its own, and each phase's figure once more with that rate over its window taken
 * out. The older "service ... ms" figure (both phases together) is kept; it now also holds the
 * quiet seconds.
 *
 *   npx tsx bench/settlement-http.ts [payments=100] [rate=100] [stores=lowdb,pg]
 *   BENCH_CPU_PROF=<dir>: the service runs with --cpu-prof (a .cpuprofile per run, written at exit).
 *   BENCH_ROOT=<dir>: the service is that checkout's src/main.ts (this bench, that code).
 *   BENCH_DOOR=<M>: then M settles of a valid body for an unknown payment (404): CPU per request of the door's share.
 *   BENCH_WARM=<M>: M settles at once before the measured phases, not measured (a warm service; the target's figure is cold, M=0).
 *   BENCH_NODE_FLAGS="<flags>": extra node flags for the service (e.g. --trace-opt --trace-deopt).
 *   BENCH_CHILD_LOG=<file>: the service's output written to <file>.<store>, with "=== burst start/end" marks.
 *   BENCH_PG_STATEMENTS=1 (or =kinds, also listing the burst's statements by kind): the service's PostgreSQL round trips, statements and commits per settle in each phase,
 *     counted at the driver (bench/pg-statements-preload.mjs, off by default: the measured runs carry no wrapper).
 *   BENCH_PG_PAYMENT_INDEXES=text|seq (an experiment, not the service's schema): after the migrations, the seven indexes of
 *     `payments` on doc are rebuilt under the same names with text keys (`(doc ->> 'f') COLLATE "C"`), or each as a plain
 *     index on seq; the store checks names only, and a settle reads payments by id only, so the bench runs and shows what
 *     those indexes cost a settle on the server (list reads would lose their indexes: never for a real service).
 *
 * PostgreSQL runs on the same cores as the service, anvil and this client, so on the pg run the
 * server's own CPU per settlement is reported too (tenth round): from /proc, the backends of the
 * bench's database (the service's pool and its LISTEN session; their command lines name the
 * database) and, apart, every postgres process (the postmaster's children, with the WAL writer
 * and checkpointer; also any other database's sessions on this machine, so a busy machine
 * inflates it). A backend that ends inside a phase takes its CPU with it (the pool keeps its
 * sessions for 10 s idle, longer than a phase's gaps).
 */
import { childNamed } from './proc-cpu.js';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createNonceManager, createPublicClient, createWalletClient, defineChain, http, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { jsonRpc } from 'viem/nonce';
import { stablecoinAbi } from '../src/chain/artifacts/stablecoin.js';
import pg from 'pg';
import { ADMIN_URL, admin } from './pg-admin.js';
import { percentile, pool } from './stats.js';

// BENCH_ROOT=<another checkout>: run that tree's service under this bench (alternated before/after pairs).
const ROOT = process.env.BENCH_ROOT ? path.resolve(process.env.BENCH_ROOT) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'src', 'main.ts');
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
/** The pause after each phase before its CPU is read (see `quiet` in runOnce). */
const QUIET_MS = 1000;

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
/** CPU seconds of every postgres process (comm "postgres"), and whether its command line names `db`. */
function postgresCpu(db: string): Map<number, { cpu: number; db: boolean }> {
  const out = new Map<number, { cpu: number; db: boolean }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')) !== 'postgres') continue;
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      out.set(Number(d), { cpu: (Number(f[11]) + Number(f[12])) / 100, db: cmd.includes(` ${db} `) });
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}
/** CPU seconds spent between two snapshots: the bench database's backends, and all postgres processes (a process born in between counts from 0). */
function postgresCpuBetween(a: Map<number, { cpu: number; db: boolean }>, b: Map<number, { cpu: number; db: boolean }>): { db: number; all: number } {
  let db = 0;
  let all = 0;
  for (const [pid, p] of b) {
    const spent = p.cpu - (a.get(pid)?.cpu ?? 0);
    all += spent;
    if (p.db) db += spent;
  }
  return { db, all };
}
/** BENCH_PG_PAYMENT_INDEXES: `payments`' indexes on doc rebuilt under their names, as text keys or on seq (see the header). */
async function swapPaymentIndexes(db: string, how: string): Promise<void> {
  if (how !== 'text' && how !== 'seq') throw new Error(`BENCH_PG_PAYMENT_INDEXES=${how}: text or seq`);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${db}`;
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    const r = await c.query<{ indexname: string; indexdef: string }>(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'payments' AND indexdef LIKE '%doc ->%'`);
    if (r.rows.length !== 7) throw new Error(`payments: ${r.rows.length} indexes on doc, expected 7`);
    for (const { indexname, indexdef } of r.rows) {
      const def =
        how === 'text'
          ? indexdef.replace(/\(doc -> ('\w+'::text)\)/g, '((doc ->> $1) COLLATE "C")').replace(/<> 'null'::jsonb/g, 'IS NOT NULL')
          : `CREATE INDEX "${indexname}" ON payments (seq)`;
      await c.query(`DROP INDEX "${indexname}"`);
      await c.query(def);
    }
  } finally {
    await c.end();
  }
}
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json().catch(() => undefined) };
}

export interface HttpSettlementRun {
  store: string;
  payments: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  pacedPerSecond: number;
  pacedP50Ms: number;
  pacedP99Ms: number;
  bareBatchedPerSecond: number;
  ratioBatched: number;
  /** CPU ms per settlement over both measured phases: the service process, the client (this process), anvil. */
  serviceCpuMs: number;
  /**
   * The service's CPU ms per settlement in each phase alone, from /proc of the service process:
   * the burst (N at once, the per-settlement work; the target "service alone ≤ 3 ms" is read
   * here) and the paced phase (N at the offered rate, which also carries the timers and receipt
   * polls of a service waiting between requests).
   */
  serviceBurstCpuMs: number;
  servicePacedCpuMs: number;
  /** The service's CPU ms per second of wall time while idle (no request), after the paced phase. */
  serviceIdleCpuMsPerS: number;
  /** Each phase's CPU per settlement with the idle rate over the phase's duration taken out. */
  serviceBurstNetCpuMs: number;
  servicePacedNetCpuMs: number;
  /** With BENCH_DOOR=M: the service's CPU ms per settle answered 404 (unknown payment): the door's share. */
  serviceDoorCpuMs?: number;
  clientCpuMs: number;
  anvilCpuMs: number;
  /** pg run only: the PostgreSQL server's CPU ms per settlement in each phase, the bench database's backends and all postgres processes. */
  pgServerBurstCpuMs?: number;
  pgServerAllBurstCpuMs?: number;
  pgServerPacedCpuMs?: number;
  pgServerAllPacedCpuMs?: number;
  /** With BENCH_PG_STATEMENTS=1: per settle in the burst, at the driver. */
  pgBurstPerSettle?: { roundTrips: number; statements: number; commits: number; textKb: number };
}

async function runOnce(store: 'lowdb' | 'pg', n: number, rate: number, print: (l: string) => void): Promise<HttpSettlementRun> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-settle-http-'));
  const port = await freePort();
  let dbName: string | undefined;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATA_DIR: dataDir,
    ANVIL_PORT: String(port),
    RECONCILE_INTERVAL: '1h',
    ANTHROPIC_API_KEY: '',
    TELEGRAM_BOT_TOKEN: '',
    PUBLIC_URL: '',
  };
  delete env.CHAIN_RPC_URL;
  delete env.DATABASE_URL;
  if (store === 'pg') {
    dbName = `settle_bench_${randomBytes(4).toString('hex')}`;
    await admin(`CREATE DATABASE "${dbName}"`);
    const u = new URL(ADMIN_URL);
    u.pathname = `/${dbName}`;
    env.DATABASE_URL = u.toString();
  }
  const warm = Number(process.env.BENCH_WARM ?? 0);
  const prof = [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : []), ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])];
  const countStatements = store === 'pg' && (process.env.BENCH_PG_STATEMENTS === '1' || process.env.BENCH_PG_STATEMENTS === 'kinds');
  if (countStatements) prof.push('--import', pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'pg-statements-preload.mjs')).href);
  const child = spawn(process.execPath, [...prof, '--import', 'tsx', MAIN], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
  const logs: string[] = [];
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  type PgCounts = { roundTrips: number; statements: number; commits: number; textKb: number; kinds?: Record<string, number> };
  let countsWaiting: ((c: PgCounts) => void) | undefined;
  readline.createInterface({ input: child.stderr! }).on('line', (l) => {
    if (l.startsWith('bench-pg-statements ')) return countsWaiting?.(JSON.parse(l.slice(20)) as PgCounts);
    logs.push(l);
  });
  const pgCounts = (): Promise<PgCounts | undefined> =>
    countStatements
      ? new Promise((resolve) => {
          countsWaiting = resolve;
          child.kill('SIGUSR2');
        })
      : Promise.resolve(undefined);
  try {
    const api = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        logs.push(line);
        const m = /API: (http:\/\/\S+\/api)[,)]/.exec(line);
        if (m) resolve(m[1]!);
      });
      void exited.then(() => reject(new Error(`service exited during start:\n${logs.slice(-20).join('\n')}`)));
    });

    if (dbName && process.env.BENCH_PG_PAYMENT_INDEXES) await swapPaymentIndexes(dbName, process.env.BENCH_PG_PAYMENT_INDEXES);

    // Setup (not measured): a merchant and its key, 2N payments, one funded payer's signatures.
    const email = `bench${Date.now()}@example.com`;
    const signup = await fetch(`${api}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery', name: 'Bench Shop' }),
    });
    const cookie = signup.headers.get('set-cookie')!.split(';')[0]!;
    const key = (await post(`${api}/keys`, { label: 'bench' }, { cookie })).body.key.secret as string;
    const payer = privateKeyToAccount(generatePrivateKey());
    const funded = await post(`${api}/dev/faucet`, { address: payer.address, amount: String(2 * (2 * n + warm) + 10) });
    if (funded.status !== 200) throw new Error(`faucet: ${funded.status} ${JSON.stringify(funded.body)}`);
    const prepared: Array<{ id: string; authorization: unknown; signature: Hex }> = [];
    await pool(
      Array.from({ length: 2 * n + warm }, (_, i) => i),
      8,
      async () => {
        const created = await post(`${api}/v1/payments`, { amount: 2, currency: 'USD', redirect_url: 'https://shop.example/done' }, { authorization: `Bearer ${key}` });
        if (created.status !== 201) throw new Error(`create: ${created.status}`);
        const auth = await post(`${api}/checkout/${created.body.id}/authorization`, { from: payer.address });
        if (auth.status !== 200) throw new Error(`authorization: ${auth.status} ${JSON.stringify(auth.body)}`);
        prepared.push({ id: created.body.id, authorization: auth.body.typedData.message, signature: await payer.signTypedData(auth.body.typedData) });
      },
    );
    const paced = prepared.splice(n, n);
    const warmup = prepared.splice(n);
    const anvil = childNamed('anvil', child.pid!);
    const settle = async (p: (typeof prepared)[number]) => {
      const r = await fetch(`${api}/checkout/${p.id}/settle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ authorization: p.authorization, signature: p.signature }),
      });
      const body = (await r.json()) as { ok?: boolean; payment?: { status?: string } };
      if (r.status !== 200 || body.payment?.status !== 'settled') throw new Error(`settle ${p.id}: ${r.status} ${JSON.stringify(body)}`);
    };

    // Each phase's CPU is read after a quiet second (QUIET_MS), so it includes the work its
    // settlements leave behind (the store's background writes, webhook rows) and the next phase
    // starts from a service with nothing pending; the setup's trail is left out the same way.
    const quiet = () => new Promise((r) => setTimeout(r, QUIET_MS));
    // BENCH_WARM=<M>: M settles at once before the measured phases (not measured), so the burst
    // runs on code V8 has already compiled (a service that has been up a while); default 0.
    if (warmup.length > 0) {
      await Promise.all(warmup.map(settle));
      await quiet();
    }
    await quiet();
    logs.push('=== burst start');
    const counts0 = await pgCounts();
    const pg0 = dbName ? postgresCpu(dbName) : undefined;
    const cpu0 = { service: cpuSeconds(child.pid!), anvil: anvil ? cpuSeconds(anvil) : NaN, client: process.cpuUsage() };
    const burst: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      prepared.map(async (p) => {
        const s = performance.now();
        await settle(p);
        burst.push(performance.now() - s);
      }),
    );
    const burstSeconds = (performance.now() - t0) / 1000;
    await quiet();
    logs.push('=== burst end');
    const serviceAfterBurst = cpuSeconds(child.pid!);
    const pg1 = dbName ? postgresCpu(dbName) : undefined;
    const counts1 = await pgCounts();
    const burstWindow = (performance.now() - t0) / 1000;
    const pacedTimes: number[] = [];
    const tp = performance.now();
    await Promise.all(
      paced.map(async (p, i) => {
        await new Promise((r) => setTimeout(r, (i * 1000) / rate));
        const s = performance.now();
        await settle(p);
        pacedTimes.push(performance.now() - s);
      }),
    );
    const pacedSeconds = (performance.now() - tp) / 1000;
    await quiet();
    const pacedWindow = (performance.now() - tp) / 1000;
    const pg2 = dbName ? postgresCpu(dbName) : undefined;
    const client = process.cpuUsage(cpu0.client);
    const per = (secs: number) => round((secs * 1000) / (2 * n), 2);
    const serviceCpuMs = per(cpuSeconds(child.pid!) - cpu0.service);
    const anvilCpuMs = anvil ? per(cpuSeconds(anvil) - cpu0.anvil) : NaN;
    const clientCpuMs = per((client.user + client.system) / 1e6);
    const serviceAfterPaced = cpuSeconds(child.pid!);
    // The service idle (nothing asked of it): what its timers cost per second, apart from the settlements.
    const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 3);
    const ti = performance.now();
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const idleCpuPerS = (cpuSeconds(child.pid!) - serviceAfterPaced) / ((performance.now() - ti) / 1000);
    const phase = (cpu: number) => round((cpu * 1000) / n, 2);
    const serviceBurstCpuMs = phase(serviceAfterBurst - cpu0.service);
    const servicePacedCpuMs = phase(serviceAfterPaced - serviceAfterBurst);
    const serviceIdleCpuMsPerS = round(idleCpuPerS * 1000, 1);
    const serviceBurstNetCpuMs = phase(serviceAfterBurst - cpu0.service - idleCpuPerS * burstWindow);
    // BENCH_DOOR=M: M settles of a valid signed body for a payment id the store does not have
    // (16 at a time), answered 404 after the payment read: the HTTP door, the body's validation,
    // one store read and the answer, with no chain, signature check or commit whose batching moves
    // with the load (a steadier CPU figure for the door's share of a settlement).
    const replays = Number(process.env.BENCH_DOOR ?? 0);
    let replayCpuMs: number | undefined;
    if (replays > 0) {
      const body = JSON.stringify({ authorization: prepared[0]!.authorization, signature: prepared[0]!.signature });
      const r0 = cpuSeconds(child.pid!);
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next++ < replays) {
            const r = await fetch(`${api}/checkout/pay_nosuch${next}/settle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
            if (r.status !== 404) throw new Error(`door settle: ${r.status}`);
            await r.arrayBuffer();
          }
        }),
      );
      replayCpuMs = round(((cpuSeconds(child.pid!) - r0) * 1000) / replays, 3);
    }
    const servicePacedNetCpuMs = phase(serviceAfterPaced - serviceAfterBurst - idleCpuPerS * pacedWindow);

    // The ceiling on the same chain, same run: N bare transfers from one account, batched JSON-RPC.
    const rpcUrl = `http://127.0.0.1:${port}`;
    const chain = defineChain({ id: 31337, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
    const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 20 });
    const tokenAddress = JSON.parse(readFileSync(path.join(dataDir, 'chain', 'deployment.json'), 'utf8')).tokenAddress as Address;
    const sender = privateKeyToAccount(generatePrivateKey(), { nonceManager: createNonceManager({ source: jsonRpc() }) });
    const f2 = await post(`${api}/dev/faucet`, { address: sender.address, amount: '1' });
    if (f2.status !== 200) throw new Error(`faucet: ${f2.status}`);
    await publicClient.request({ method: 'anvil_setBalance' as never, params: [sender.address, `0x${parseEther('1').toString(16)}`] as never });
    const wallet = createWalletClient({ account: sender, chain, transport: http(rpcUrl, { batch: { wait: 0 } }) });
    const sink = privateKeyToAccount(generatePrivateKey()).address;
    const tb = performance.now();
    await Promise.all(
      Array.from({ length: n }, async () => {
        const hash = await wallet.writeContract({ address: tokenAddress, abi: stablecoinAbi, functionName: 'transfer', args: [sink, 1n] });
        // Bounded: a transfer the node dropped fails the run in 30 s instead of holding it for viem's 3 minutes.
        const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 30_000 });
        if (receipt.status !== 'success') throw new Error(`bare transfer ${hash}: ${receipt.status}`);
      }),
    );
    const bareBatchedPerSecond = n / ((performance.now() - tb) / 1000);

    burst.sort((a, b) => a - b);
    pacedTimes.sort((a, b) => a - b);
    const run: HttpSettlementRun = {
      store,
      payments: n,
      perSecond: round(n / burstSeconds),
      p50Ms: round(percentile(burst, 50)),
      p99Ms: round(percentile(burst, 99)),
      pacedPerSecond: round(n / pacedSeconds),
      pacedP50Ms: round(percentile(pacedTimes, 50)),
      pacedP99Ms: round(percentile(pacedTimes, 99)),
      bareBatchedPerSecond: round(bareBatchedPerSecond),
      ratioBatched: round(n / burstSeconds / bareBatchedPerSecond, 2),
      serviceCpuMs,
      serviceBurstCpuMs,
      servicePacedCpuMs,
      serviceIdleCpuMsPerS,
      serviceBurstNetCpuMs,
      servicePacedNetCpuMs,
      serviceDoorCpuMs: replayCpuMs,
      clientCpuMs,
      anvilCpuMs,
    };
    if (pg0 && pg1 && pg2) {
      const burstPg = postgresCpuBetween(pg0, pg1);
      const pacedPg = postgresCpuBetween(pg1, pg2);
      run.pgServerBurstCpuMs = phase(burstPg.db);
      run.pgServerAllBurstCpuMs = phase(burstPg.all);
      run.pgServerPacedCpuMs = phase(pacedPg.db);
      run.pgServerAllPacedCpuMs = phase(pacedPg.all);
    }
    if (counts0 && counts1) {
      const per = (k: 'roundTrips' | 'statements' | 'commits' | 'textKb') => round((counts1[k] - counts0[k]) / n, 2);
      run.pgBurstPerSettle = { roundTrips: per('roundTrips'), statements: per('statements'), commits: per('commits'), textKb: per('textKb') };
      // BENCH_PG_STATEMENTS=kinds: the burst's statements by their opening words.
      if (counts1.kinds) {
        for (const [k, v] of Object.entries(counts1.kinds).sort((x, y) => y[1] - x[1])) {
          const d = v - (counts0.kinds?.[k] ?? 0);
          if (d > 0) print(`  burst statements: ${d} × ${k}`);
        }
      }
    }
    print(
      `settlement over HTTP (${store}): ${n} settles at once ${run.perSecond}/s (p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms); ` +
        `batched bare transfers ${run.bareBatchedPerSecond}/s; settlement / batched bare = ${run.ratioBatched}; ` +
        `paced ${rate}/s offered: ${run.pacedPerSecond}/s, p50 ${run.pacedP50Ms} ms, p99 ${run.pacedP99Ms} ms; ` +
        `CPU per settlement: service ${serviceCpuMs} ms, client ${clientCpuMs} ms, anvil ${anvilCpuMs} ms`,
    );
    print(
      `service CPU (${store}${warm ? `, after ${warm} warm-up settles` : ""}, /proc of the service alone): burst ${serviceBurstCpuMs} ms per settlement (net of idle ${serviceBurstNetCpuMs}; the target's figure), ` +
        `paced ${servicePacedCpuMs} ms per settlement (net of idle ${servicePacedNetCpuMs}); idle ${serviceIdleCpuMsPerS} ms CPU per second` +
        (replayCpuMs === undefined ? '' : `; door: ${replays} settles of an unknown payment ${replayCpuMs} ms each`),
    );
    if (run.pgServerBurstCpuMs !== undefined) {
      print(
        `PostgreSQL server CPU (${store}, /proc): burst ${run.pgServerBurstCpuMs} ms per settlement in the bench database's backends (all postgres processes ${run.pgServerAllBurstCpuMs}), ` +
          `paced ${run.pgServerPacedCpuMs} ms (all ${run.pgServerAllPacedCpuMs}); service + server burst ${round(serviceBurstCpuMs + run.pgServerBurstCpuMs, 2)} ms` +
          (run.pgBurstPerSettle
            ? `; per settle in the burst, at the driver: ${run.pgBurstPerSettle.roundTrips} round trips, ${run.pgBurstPerSettle.statements} statements, ${run.pgBurstPerSettle.commits} commits, ${run.pgBurstPerSettle.textKb} kB of query text`
            : ''),
      );
    }
    return run;
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    if (process.env.BENCH_CHILD_LOG) writeFileSync(`${process.env.BENCH_CHILD_LOG}.${store}`, logs.join('\n'));
    clearTimeout(timer);
    await rm(dataDir, { recursive: true, force: true });
    if (dbName) await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
  }
}

export async function benchSettlementHttp(opts: { payments?: number; rate?: number; stores?: Array<'lowdb' | 'pg'>; print?: (l: string) => void } = {}) {
  const print = opts.print ?? ((l: string) => console.log(l));
  const runs: HttpSettlementRun[] = [];
  for (const store of opts.stores ?? ['lowdb', 'pg']) runs.push(await runOnce(store, opts.payments ?? 100, opts.rate ?? 100, print));
  const lowdb = runs.find((r) => r.store === 'lowdb');
  const pg = runs.find((r) => r.store === 'pg');
  if (lowdb && pg) print(`settlement over HTTP: PostgreSQL / embedded = ${round(pg.perSecond / lowdb.perSecond, 2)} (burst), ${round(pg.ratioBatched / lowdb.ratioBatched, 2)} (each against its own run's ceiling)`);
  return runs;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [n, rate, stores] = process.argv.slice(2);
  benchSettlementHttp({
    payments: n ? Number(n) : undefined,
    rate: rate ? Number(rate) : undefined,
    stores: stores ? (stores.split(',') as Array<'lowdb' | 'pg'>) : undefined,
  }).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
