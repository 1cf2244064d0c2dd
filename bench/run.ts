/**
 * `npm run bench`: every benchmark section, one after the other, each printing its own
 * figures: core HTTP (bench/http.ts), settlement, webhooks, x402, agent turns and cold start.
 *
 *   BENCH_DURATION=10   seconds per autocannon measurement (default 10)
 *   BENCH_ONLY=http     comma-separated section names to run (default: all)
 *   BENCH_SCALES=1000,100000   stored payments for the HTTP section
 *   BENCH_STORE_SCALES=1000,1000000   stored payments for the store section (PostgreSQL vs lowdb)
 *   BENCH_LOWDB_MAX=1000000    largest lowdb size the store section seeds
 *   BENCH_PG_POOLS=4,10,20     PostgreSQL pool sizes the store section measures (default: the service's default)
 *   BENCH_STORE_ROUNDS=2       repeat the store section's sequence per scale (interleaves the subjects)
 *   BENCH_SETTLES=60   settles per phase of the instances section (one relayer key vs a pool)
 */
import os from 'node:os';
import { benchHttp, formatTable } from './http.js';
import { benchSettlement } from './settlement.js';
import { benchWebhooks } from './webhooks.js';
import { benchAgent } from './agent.js';
import { benchX402 } from './x402.js';
import { benchColdStart } from './cold-start.js';
import { benchStore } from './store.js';
import { benchInstances } from './instances.js';

export interface BenchContext {
  /** Seconds per measurement (BENCH_DURATION). */
  seconds: number;
  print: (line: string) => void;
}

interface Section {
  name: string;
  run(ctx: BenchContext): Promise<unknown>;
}

function sections(): Section[] {
  const scales = (process.env.BENCH_SCALES ?? '1000,100000').split(',').map((s) => Number(s.trim()));
  return [
    {
      name: 'http',
      run: async (ctx) => formatTable(await benchHttp({ seconds: ctx.seconds, scales, print: ctx.print })),
    },
    { name: 'settlement', run: (ctx) => benchSettlement({ print: ctx.print }) },
    { name: 'webhooks', run: (ctx) => benchWebhooks({ print: ctx.print }) },
    { name: 'x402', run: (ctx) => benchX402({ print: ctx.print }) },
    { name: 'agent', run: (ctx) => benchAgent({ print: ctx.print, seconds: ctx.seconds }) },
    { name: 'cold-start', run: (ctx) => benchColdStart({ print: ctx.print }) },
    {
      name: 'instances',
      run: (ctx) => benchInstances({ seconds: ctx.seconds, settles: Number(process.env.BENCH_SETTLES ?? 60), print: ctx.print }),
    },
    {
      name: 'store',
      run: (ctx) =>
        benchStore({
          seconds: ctx.seconds,
          scales: (process.env.BENCH_STORE_SCALES ?? '1000,1000000').split(',').map((s) => Number(s.trim())),
          lowdbMax: Number(process.env.BENCH_LOWDB_MAX ?? 1_000_000),
          pools: (process.env.BENCH_PG_POOLS ?? '').split(',').filter((s) => s.trim()).map((s) => Number(s.trim())),
          rounds: Number(process.env.BENCH_STORE_ROUNDS ?? 1),
          print: ctx.print,
        }),
    },
  ];
}

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_DURATION ?? 10);
  if (!(seconds > 0)) throw new Error('BENCH_DURATION must be a positive number of seconds');
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim()).filter(Boolean);
  const print = (line: string) => console.log(line);
  print(`node ${process.version}, ${os.cpus().length} CPU (${os.cpus()[0]?.model ?? 'unknown'}), load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const results: Array<{ name: string; result: unknown }> = [];
  for (const s of sections()) {
    if (only && !only.includes(s.name)) continue;
    print(`\n=== ${s.name} ===`);
    const t0 = Date.now();
    const result = await s.run({ seconds, print });
    results.push({ name: s.name, result });
    print(`(${s.name}: ${((Date.now() - t0) / 1000).toFixed(0)}s)`);
  }
  print('\n=== summary ===');
  for (const { name, result } of results) {
    print(`\n[${name}]`);
    // A section that formats its own table (a string, or a `table` field) is shown as is.
    const table = typeof result === 'string' ? result : (result as { table?: unknown } | null)?.table;
    print(typeof table === 'string' ? table : JSON.stringify(result, null, 2));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
