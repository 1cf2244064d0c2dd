/**
 * Cold start: process spawn to the first `/readyz` 200, for `npm start` (tsx compiling
 * TypeScript at run time) and for the compiled build (`node dist/main.js`), on an empty data
 * directory (first start deploys the token) and on an existing one. The baseline, measured in
 * the same run, is a bare node:http server's spawn-to-first-200: the floor of any Node service.
 *
 *   BENCH_COLD_RUNS=3   runs per case (the median is reported)
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Spawns `cmd`, polls `url` until 200, kills the group; returns milliseconds and the debug log. */
async function timeToReady(cmd: string[], env: Record<string, string>, url: string): Promise<{ ms: number; log: string }> {
  const t0 = performance.now();
  const child = spawn(cmd[0]!, cmd.slice(1), { cwd: root, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${log.slice(-500)}`);
      const ok = await fetch(url).then((r) => r.status === 200, () => false);
      if (ok) return { ms: performance.now() - t0, log };
      if (performance.now() - t0 > 120_000) throw new Error(`not ready in 120 s: ${log.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    // The whole group: the service and its embedded anvil.
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {}
    await new Promise((r) => child.once('exit', r));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The start-up timeline lines (LOG_LEVEL=debug): phase -> ms. */
function phases(log: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of log.split('\n')) {
    try {
      const j = JSON.parse(line);
      if (j.phase) out[j.phase] = j.ms;
    } catch {}
  }
  return out;
}

export async function benchColdStart(opts: { print: (l: string) => void }): Promise<{ table: string }> {
  const runs = Number(process.env.BENCH_COLD_RUNS ?? 3);
  const { print } = opts;
  if (!existsSync(path.join(root, 'dist/main.js'))) {
    print('building dist/ (npm run build) ...');
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  }
  const rows: Array<[string, number, string]> = [];
  const baseline: number[] = [];
  for (let i = 0; i < runs; i++) {
    const port = await freePort();
    const src = `require('node:http').createServer((q,s)=>s.end('ok')).listen(${port},'127.0.0.1')`;
    baseline.push((await timeToReady([process.execPath, '-e', src], {}, `http://127.0.0.1:${port}/`)).ms);
  }
  const base = median(baseline);
  rows.push(['bare node:http (baseline)', base, '']);
  const cases: Array<[string, string[]]> = [
    ['npm start (tsx src/main.ts)', [path.join(root, 'node_modules/.bin/tsx'), 'src/main.ts']],
    ['node dist/main.js', [process.execPath, 'dist/main.js']],
  ];
  for (const [name, cmd] of cases) {
    const empty: number[] = [];
    const existing: number[] = [];
    let timeline: Record<string, number> = {};
    for (let i = 0; i < runs; i++) {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-cold-'));
      const env = { DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'debug', NODE_ENV: 'development' };
      try {
        let port = await freePort();
        empty.push((await timeToReady(cmd, { ...env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`)).ms);
        port = await freePort();
        const again = await timeToReady(cmd, { ...env, PORT: String(port) }, `http://127.0.0.1:${port}/readyz`);
        existing.push(again.ms);
        timeline = phases(again.log);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    }
    rows.push([`${name}, empty data dir`, median(empty), '']);
    rows.push([`${name}, existing data dir`, median(existing), Object.entries(timeline).map(([k, v]) => `${k} ${v}`).join(', ')]);
  }
  const table = [
    `median of ${runs} runs, spawn to first 200 from /readyz (ms; ratio to the bare node:http baseline)`,
    ...rows.map(([n, ms, t]) => `${n.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms  x${(ms / base).toFixed(1).padStart(5)}${t ? `   [${t}]` : ''}`),
  ].join('\n');
  print(table);
  return { table };
}
