/**
 * HTTP benchmark of the core API: `POST /api/v1/payments` and `GET /api/checkout/:id`
 * measured with autocannon against a bare express JSON route (the baseline, same run,
 * same machine), at 1,000 and 100,000 stored payments.
 *
 * The service and the baseline each run in a child process (this file, in `serve` and
 * `baseline` mode), so autocannon in the parent does not compete with them for the event loop.
 *
 *   npx tsx bench/http.ts            # all of it (BENCH_DURATION seconds per measurement)
 *   npx tsx bench/http.ts serve DIR  # (internal) the service on DATA_DIR=DIR
 *   npx tsx bench/http.ts baseline   # (internal) the bare express app
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import express from 'express';
import { LowdbStore } from '../src/store/index.js';
import { AccountsService } from '../src/accounts/accounts.js';
import { KeysService } from '../src/keys/keys.js';
import { FxService, loadFxTable } from '../src/fx/rates.js';
import { Payments, type Payment } from '../src/payments/payments.js';
import { newId } from '../src/lib/ids.js';

const HERE = fileURLToPath(import.meta.url);

// ------------------------------------------------------------------------------ measuring

export interface Measurement {
  name: string;
  /** Stored payments when measured (undefined for the baseline). */
  stored?: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** requestsPerSecond / the baseline's. */
  ratio?: number;
  /** CPU time of the serving process per request (µs), when its pid was given. */
  cpuUsPerRequest?: number;
  /** The baseline's CPU per request / this one's: the throughput ratio a machine to itself would give. */
  cpuRatio?: number;
}

export interface MeasureOptions {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Body for each request (called per request, so bodies can differ). */
  body?: () => string;
  /** Path for each request (called per request). */
  path?: () => string;
  seconds: number;
  connections?: number;
  stored?: number;
  /** More servers serving the same path: autocannon spreads the connections over all of them. */
  alsoUrls?: string[];
  /** The serving process: its CPU time over the measured run is reported per request. */
  cpuPid?: number;
  /** Called between the warm-up and the measured run (e.g. to sample CPU counters). */
  beforeRun?: () => Promise<void>;
}

/** One autocannon run (after a short unmeasured warm-up, so the JIT has settled). */
export async function measure(o: MeasureOptions): Promise<Measurement> {
  const base = new URL(o.url);
  const run = (duration: number) =>
    autocannon({
      // autocannon takes an array of URLs (its README); @types/autocannon types only one.
      url: (o.alsoUrls?.length ? [base.origin, ...o.alsoUrls.map((u) => new URL(u).origin)] : base.origin) as string,
      connections: o.connections ?? 64,
      duration,
      requests: [
        {
          method: o.method ?? 'GET',
          path: base.pathname,
          headers: { ...(o.body ? { 'content-type': 'application/json' } : {}), ...o.headers },
          setupRequest: (req) => ({
            ...req,
            ...(o.path ? { path: o.path() } : {}),
            ...(o.body ? { body: o.body() } : {}),
          }),
        },
      ],
    });
  await run(Math.max(1, Math.min(2, Math.round(o.seconds / 5))));
  await o.beforeRun?.();
  const cpu0 = o.cpuPid === undefined ? undefined : await cpuMsOf(o.cpuPid);
  const r = await run(o.seconds);
  const cpu = cpu0 === undefined ? undefined : (await cpuMsOf(o.cpuPid!)) - cpu0;
  return {
    ...(cpu !== undefined && r.requests.total > 0 ? { cpuUsPerRequest: Math.round((cpu * 1000) / r.requests.total) } : {}),
    name: o.name,
    stored: o.stored,
    requestsPerSecond: Math.round(r.requests.average),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

/**
 * User + system CPU of a process so far (ms), from /proc (Linux; clock ticks of 10 ms). On a
 * shared, loaded machine CPU per request moves far less than requests per second, which
 * queueing behind other work inflates (docs/performance.md).
 */
async function cpuMsOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function formatTable(rows: Measurement[]): string {
  const head = ['measurement', 'stored', 'req/s', 'p50 ms', 'p99 ms', 'x baseline', 'non-2xx', 'errors', 'cpu us/req', 'x baseline (cpu)'];
  const body = rows.map((r) => [
    r.name,
    r.stored === undefined ? '-' : r.stored.toLocaleString('en-US'),
    r.requestsPerSecond.toLocaleString('en-US'),
    String(r.p50Ms),
    String(r.p99Ms),
    r.ratio === undefined ? '-' : r.ratio.toFixed(2),
    String(r.non2xx),
    String(r.errors),
    r.cpuUsPerRequest === undefined ? '-' : String(r.cpuUsPerRequest),
    r.cpuRatio === undefined ? '-' : r.cpuRatio.toFixed(2),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

// --------------------------------------------------------------------------- child processes

interface Child {
  url: string;
  /** The child's process id (for CPU accounting). */
  pid: number;
  stop(): Promise<void>;
}

/** Runs this file in `mode` and waits for the `{"url": ...}` line it prints when listening. */
export function spawnChild(mode: string, args: string[] = [], env: Record<string, string> = {}): Promise<Child> {
  return new Promise((resolve, reject) => {
    // BENCH_CPU_PROF=<dir>: a V8 CPU profile of each child, written when it exits.
    const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
    const child: ChildProcess = spawn(process.execPath, [...prof, '--import', 'tsx', HERE, mode, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = readline.createInterface({ input: child.stdout! });
    const onExit = (code: number | null) => reject(new Error(`${mode} exited with ${code} before listening`));
    child.once('exit', onExit);
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return;
      const { url } = JSON.parse(line) as { url: string };
      child.off('exit', onExit);
      resolve({
        url,
        pid: child.pid!,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** The bare express app: JSON body parsing and a JSON answer, nothing else. */
async function serveBaseline(): Promise<void> {
  const app = express();
  app.use(express.json({ limit: '100kb' }));
  let n = 0;
  app.post('/baseline', (req, res) => {
    res.status(201).json({ id: `pay_${++n}`, status: 'pending', received: Object.keys(req.body ?? {}).length });
  });
  app.get('/baseline/:id', (req, res) => {
    res.json({ ok: true, payment: { id: req.params.id, status: 'pending' } });
  });
  const server = app.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}` }) + '\n');
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

/** The real service (same composition root as `npm start`) on an already seeded DATA_DIR. */
async function serveService(dataDir: string): Promise<void> {
  const { loadConfig } = await import('../src/config/config.js');
  const { startService } = await import('../src/service.js');
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATA_DIR: dataDir,
  });
  const svc = await startService(config, { print: () => {} });
  process.stdout.write(JSON.stringify({ url: svc.url }) + '\n');
  process.on('SIGTERM', () => {
    svc.close().then(() => process.exit(0));
  });
}

// --------------------------------------------------------------------------------- seeding

export interface Seeded {
  dataDir: string;
  secret: string;
  accountId: string;
  /** Ids of a sample of the stored payments (for reads). */
  sampleIds: string[];
}

/**
 * Writes `count` payments for one merchant straight through the store API, in large
 * transactions (one flush each), instead of one HTTP request per payment.
 */
export async function seed(count: number, status: Payment['status'] = 'pending'): Promise<Seeded> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-http-'));
  const store = await LowdbStore.open(dataDir);
  try {
    const accounts = new AccountsService(store);
    const created = await accounts.create({ name: 'Bench Shop', email: 'bench@example.com' });
    if (!created.ok) throw new Error(created.message);
    const accountId = created.account.id;
    const { secret } = await new KeysService(store).create(accountId, { label: 'bench' });
    const fx = new FxService(loadFxTable());
    const converted = fx.toStablecoin('25', 'USD');
    if (!converted.ok) throw new Error(converted.message);
    const sampleIds: string[] = [];
    const batch = 20_000;
    for (let start = 0; start < count; start += batch) {
      await store.transaction(async (tx) => {
        const t = tx.table(Payments);
        for (let i = start; i < Math.min(count, start + batch); i++) {
          const now = new Date();
          const row: Payment = {
            id: newId('pay'),
            accountId,
            status,
            amount: '25',
            currency: 'USD',
            stablecoinAmount: converted.conversion.stablecoinAmount.toString(),
            rate: converted.conversion.rate,
            redirectUrl: 'https://shop.example/thanks',
            reference: `seed-${i}`,
            description: 'Seeded payment',
            metadata: { order: i },
            expiresInMinutes: 1440,
            createdAt: now.toISOString(),
            expiresAt: new Date(now.getTime() + 1440 * 60_000).toISOString(),
            updatedAt: now.toISOString(),
            requestHash: createHash('sha256').update(`seed-${i}`).digest('hex'),
          };
          await t.insert(row);
          if (sampleIds.length < 1000 && i % Math.max(1, Math.floor(count / 1000)) === 0) sampleIds.push(row.id);
        }
      });
    }
    return { dataDir, secret, accountId, sampleIds };
  } finally {
    await store.close();
  }
}

// ------------------------------------------------------------------------------ the section

export interface HttpBenchOptions {
  seconds: number;
  scales?: number[];
  print?: (line: string) => void;
}

/**
 * For each scale: seed, start the service, and measure each service route right after the
 * matching baseline route, so a ratio compares two runs made under the same machine load.
 */
export async function benchHttp(opts: HttpBenchOptions): Promise<Measurement[]> {
  const print = opts.print ?? ((l: string) => console.log(l));
  const scales = opts.scales ?? [1_000, 100_000];
  const seconds = opts.seconds;
  const rows: Measurement[] = [];
  const createBody = (ref: () => string) => () =>
    JSON.stringify({
      amount: 25,
      currency: 'USD',
      redirect_url: 'https://shop.example/thanks',
      reference: ref(),
      description: 'Bench order',
      metadata: { channel: 'bench' },
    });

  print(`core HTTP: ${seconds}s per measurement, 64 connections, baseline = bare express JSON route`);
  const baseline = await spawnChild('baseline');
  try {
    for (const stored of scales) {
      print(`seeding ${stored.toLocaleString('en-US')} payments...`);
      const t0 = Date.now();
      const seeded = await seed(stored);
      print(`  seeded in ${((Date.now() - t0) / 1000).toFixed(1)}s; starting the service`);
      const svc = await spawnChild('serve', [seeded.dataDir]);
      try {
        let b = 0;
        const basePost = await measure({
          name: 'baseline POST /baseline',
          url: `${baseline.url}/baseline`,
          method: 'POST',
          body: createBody(() => `b-${++b}`),
          seconds,
          stored,
        });
        let n = 0;
        const run = `${Date.now()}`;
        const create = await measure({
          name: 'POST /api/v1/payments',
          url: `${svc.url}/api/v1/payments`,
          method: 'POST',
          headers: { authorization: `Bearer ${seeded.secret}` },
          body: createBody(() => `bench-${run}-${++n}`),
          seconds,
          stored,
        });
        create.ratio = create.requestsPerSecond / basePost.requestsPerSecond;
        const baseGet = await measure({ name: 'baseline GET /baseline/:id', url: `${baseline.url}/baseline/pay_x`, seconds, stored, cpuPid: baseline.pid });
        let k = 0;
        const ids = seeded.sampleIds;
        // Each session's first read gives it its deposit address (an HD derivation and a store
        // insert, once per session); the measurement is of the polls that follow, which is what a
        // checkout page and a merchant's server repeat. The first reads are timed apart.
        const firstReads = await warmReads(svc.url, ids);
        print(`  first reads (deposit address given out): ${ids.length} in ${firstReads.toFixed(1)}s = ${Math.round(ids.length / firstReads)}/s, 8 at a time`);
        const read = await measure({
          name: 'GET /api/checkout/:id',
          url: `${svc.url}/api/checkout/x`,
          path: () => `/api/checkout/${ids[k++ % ids.length]}`,
          seconds,
          stored,
          cpuPid: svc.pid,
        });
        read.ratio = read.requestsPerSecond / baseGet.requestsPerSecond;
        if (read.cpuUsPerRequest && baseGet.cpuUsPerRequest) read.cpuRatio = baseGet.cpuUsPerRequest / read.cpuUsPerRequest;
        rows.push(basePost, create, baseGet, read);
        print(formatTable(rows));
      } finally {
        await svc.stop();
        await rm(seeded.dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await baseline.stop();
  }
  return rows;
}

/** Reads every id once, 8 at a time; the seconds it took. */
async function warmReads(url: string, ids: string[]): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < ids.length) {
        const res = await fetch(`${url}/api/checkout/${ids[next++]}`);
        if (res.status !== 200) throw new Error(`warm read: ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
  return (performance.now() - t0) / 1000;
}

// ------------------------------------------------------------------------------ entry point

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [mode, arg] = process.argv.slice(2);
  const main =
    mode === 'baseline'
      ? serveBaseline()
      : mode === 'serve'
        ? serveService(arg!)
        : benchHttp({ seconds: Number(process.env.BENCH_DURATION ?? 10) }).then((rows) => console.log('\n' + formatTable(rows)));
  main.catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
