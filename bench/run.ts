/**
 * `npm run bench`: every benchmark section, one after the other, each printing its own
 * figures. The core HTTP section is always there; sections owned by other parts of the
 * service (bench/settlement.ts, bench/webhooks.ts, bench/agent.ts, ...) run when their file
 * exists and exports the named function, called as `fn({ print, seconds })`.
 *
 *   BENCH_DURATION=10   seconds per autocannon measurement (default 10)
 *   BENCH_ONLY=http     comma-separated section names to run (default: all)
 *   BENCH_SCALES=1000,100000   stored payments for the HTTP section
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import os from 'node:os';
import { benchHttp, formatTable } from './http.js';

export interface BenchContext {
  /** Seconds per measurement (BENCH_DURATION). */
  seconds: number;
  print: (line: string) => void;
}

interface Section {
  name: string;
  run(ctx: BenchContext): Promise<unknown>;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** Sections that live in their own file; skipped (and said so) when the file is absent. */
const OPTIONAL: Array<{ name: string; file: string; fn: string }> = [
  { name: 'settlement', file: 'settlement.ts', fn: 'benchSettlement' },
  { name: 'webhooks', file: 'webhooks.ts', fn: 'benchWebhooks' },
  { name: 'agent', file: 'agent.ts', fn: 'benchAgent' },
];

function sections(): Section[] {
  const scales = (process.env.BENCH_SCALES ?? '1000,100000').split(',').map((s) => Number(s.trim()));
  const list: Section[] = [
    {
      name: 'http',
      run: async (ctx) => {
        const rows = await benchHttp({ seconds: ctx.seconds, scales, print: ctx.print });
        return formatTable(rows);
      },
    },
  ];
  for (const o of OPTIONAL) {
    const file = path.join(here, o.file);
    list.push({
      name: o.name,
      run: async (ctx) => {
        // Guarded: another engineer's bench may not exist yet in this checkout.
        if (!existsSync(file)) return `skipped: bench/${o.file} does not exist`;
        const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
        const fn = mod[o.fn];
        if (typeof fn !== 'function') return `skipped: bench/${o.file} does not export ${o.fn}()`;
        return (fn as (opts: BenchContext) => Promise<unknown>)({ print: ctx.print, seconds: ctx.seconds });
      },
    });
  }
  return list;
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
