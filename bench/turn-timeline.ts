/**
 * A wall-clock timeline of agent turns and bare custodial moves (issue 23, eighth round):
 * where one call waits. Bench only (`BENCH_TIMELINE=1 npx tsx bench/agent.ts`): it patches the
 * service's objects in this process, nothing in src/ knows of it.
 *
 * Each traced call (an HTTP request carrying `x-bench-trace: <id>`, or a function run under
 * `traced`) gets its own span list through AsyncLocalStorage; the patched methods add a span
 * (start, end, label) to the list of the call they run for. Work shared by several calls (a
 * relayer group, the receipt loop) counts for the call that started it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import { ReceiptWatcher } from '../src/chain/receipts.js';
import { SendGroups } from '../src/chain/send-groups.js';
import { RelayerSender } from '../src/chain/relayer-sender.js';
import { TransferSubmitter } from '../src/chain/submit.js';
import { percentile } from './stats.js';

export interface Span {
  label: string;
  s: number;
  e: number;
}
export interface Trace {
  t0: number;
  end?: number;
  spans: Span[];
}

const als = new AsyncLocalStorage<Trace>();
const byId = new Map<string, Trace>();
export const TRACE_HEADER = 'x-bench-trace';

/** Starts a trace at `t0` (the client's start) for the request that will carry `id`. */
export function expectTrace(id: string, t0: number): Trace {
  const t: Trace = { t0, spans: [] };
  byId.set(id, t);
  return t;
}

export function traced<R>(fn: () => Promise<R>): { trace: Trace; done: Promise<R> } {
  const trace: Trace = { t0: performance.now(), spans: [] };
  const done = als.run(trace, fn).finally(() => (trace.end = performance.now()));
  return { trace, done };
}

function add(label: string, s: number, e = performance.now()): void {
  als.getStore()?.spans.push({ label, s, e });
}

/** Replaces `obj[name]` by a version that records a span per call (promise: until it settles). */
function wrap(obj: object, name: string, label: string | ((args: unknown[]) => string) = name): void {
  const o = obj as Record<string, unknown>;
  const orig = o[name] as (...a: unknown[]) => unknown;
  if (typeof orig !== 'function') throw new Error(`timeline: no method ${name}`);
  o[name] = function (this: unknown, ...args: unknown[]) {
    const tr = als.getStore();
    if (!tr) return orig.apply(this, args);
    const s = performance.now();
    const l = typeof label === 'string' ? label : label(args);
    const r = orig.apply(this, args);
    if (r && typeof (r as Promise<unknown>).then === 'function') {
      return (r as Promise<unknown>).then(
        (v) => (tr.spans.push({ label: l, s, e: performance.now() }), v),
        (err: unknown) => {
          tr.spans.push({ label: `${l} (threw)`, s, e: performance.now() });
          throw err;
        },
      );
    }
    tr.spans.push({ label: l, s, e: performance.now() });
    return r;
  };
}

/** The first stack frame in src/ outside the store: who opened a transaction. */
function caller(): string {
  const lines = (new Error().stack ?? '').split('\n').slice(2);
  for (const l of lines) {
    const m = /src\/([^):]+):(\d+)/.exec(l);
    if (m && !m[1]!.startsWith('store/')) return `${m[1]}:${m[2]}`;
  }
  return '?';
}

/** Before the service starts: the server side of a traced request. */
export function installHttp(): void {
  const emit = http.Server.prototype.emit as (this: http.Server, event: string, ...args: unknown[]) => boolean;
  http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
    if (event === 'request') {
      const req = args[0] as http.IncomingMessage;
      const res = args[1] as http.ServerResponse;
      const id = req.headers[TRACE_HEADER];
      const tr = typeof id === 'string' ? byId.get(id) : undefined;
      if (tr) {
        byId.delete(id as string);
        const s = performance.now();
        tr.spans.push({ label: 'client → server request event', s: tr.t0, e: s });
        res.once('finish', () => tr.spans.push({ label: 'server: request event → response finished', s, e: performance.now() }));
        return als.run(tr, () => emit.call(this, event, ...args));
      }
    }
    return emit.call(this, event, ...args);
  } as typeof http.Server.prototype.emit;
}

interface Patchable {
  store: object;
  chain: object & { publicClient: object };
  agent: object;
  transfers: object;
}

/** After the service starts: its store, chain and agent. */
export function installService(d: Patchable): void {
  // Store transactions: waiting for the lock, the body, then the commit (flush) until it resolves.
  const store = d.store as { transaction: (fn: (tx: unknown) => Promise<unknown>, o?: unknown) => Promise<unknown> };
  const tx = store.transaction.bind(store);
  store.transaction = (fn, o) => {
    const tr = als.getStore();
    if (!tr) return tx(fn, o);
    const who = caller();
    const s = performance.now();
    let bs = 0;
    let be = 0;
    return tx(async (t) => {
      bs = performance.now();
      try {
        return await fn(t);
      } finally {
        be = performance.now();
      }
    }, o).finally(() => {
      const e = performance.now();
      tr.spans.push({ label: `store tx ${who}: wait for lock`, s, e: bs });
      tr.spans.push({ label: `store tx ${who}: body`, s: bs, e: be });
      tr.spans.push({ label: `store tx ${who}: commit (flush) after body`, s: be, e });
    });
  };
  // JSON-RPC calls, by method.
  const client = d.chain.publicClient as { request: (a: { method: string }) => Promise<unknown> };
  wrap(client, 'request', (a) => `rpc ${(a[0] as { method: string }).method}`);
  for (const m of ['balanceOf', 'signCustodialAuthorization', 'submitTransfers', 'waitForReceipt', 'custodialTransfer']) wrap(d.chain, m, `chain.${m}`);
  wrap(d.agent, 'runTurn', 'agent.runTurn');
  for (const m of ['send', 'preview']) wrap(d.transfers, m, `transfers.${m}`);
  wrap(SendGroups.prototype, 'submit', 'send group: queued → group answered');
  const sub = TransferSubmitter.prototype as unknown as Record<string, unknown>;
  wrap(sub, 'sendGroup', (a) => `send group: the group's send (${(a[0] as unknown[]).length} members)`);
  wrap(RelayerSender.prototype, 'sendRecorded', 'relayer.sendRecorded (fees, nonce, sign, journal, broadcast)');
  wrap(ReceiptWatcher.prototype, 'wait', 'receipt watcher wait');
}

/** Per label: how many calls had it, and the median start offset, duration and count per call. */
export function summarise(traces: readonly Trace[]): string {
  const rows = new Map<string, { starts: number[]; durs: number[]; per: number[] }>();
  for (const t of traces) {
    const seen = new Map<string, number>();
    for (const sp of t.spans) {
      const r = rows.get(sp.label) ?? { starts: [], durs: [], per: [] };
      rows.set(sp.label, r);
      r.starts.push(sp.s - t.t0);
      r.durs.push(sp.e - sp.s);
      seen.set(sp.label, (seen.get(sp.label) ?? 0) + 1);
    }
    for (const [l, n] of seen) rows.get(l)!.per.push(n);
  }
  const totals = traces.map((t) => (t.end ?? Math.max(...t.spans.map((s) => s.e))) - t.t0).sort((a, b) => a - b);
  const med = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
  const out = [...rows.entries()]
    .map(([l, r]) => ({ l, start: med(r.starts), dur: med(r.durs), sum: r.durs.reduce((a, b) => a + b, 0) / traces.length, per: r.per.reduce((a, b) => a + b, 0) / traces.length }))
    .sort((a, b) => a.start - b.start);
  const lines = [`calls ${traces.length}, total p50 ${med(totals).toFixed(1)} ms`, 'start p50 ms  dur p50 ms  dur sum/call  per call  span'];
  for (const r of out) lines.push(`${r.start.toFixed(1).padStart(12)}  ${r.dur.toFixed(1).padStart(10)}  ${r.sum.toFixed(1).padStart(12)}  ${r.per.toFixed(2).padStart(8)}  ${r.l}`);
  return lines.join('\n');
}
