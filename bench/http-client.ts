/**
 * The agent bench's HTTP client (issue 23, thirteenth round). Two modes:
 *  - `thread` (default): requests go out from a worker thread (bench/http-client-worker.mjs), so
 *    the service's event loop is not shared with the client's fetch and JSON work, and the
 *    client's CPU (that thread's, from /proc/thread-self/schedstat) is reported apart from the
 *    service's, as bench/settlement-http.ts does with a process of its own;
 *  - `inline`: fetch on the service's own thread (the bench as it was through the twelfth
 *    round; also what BENCH_TIMELINE uses, its trace marks being taken on this thread).
 */
import { Worker } from 'node:worker_threads';
import { pool } from './stats.js';

export interface HttpRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

export interface BatchResult {
  /** Per request, ms from send to the whole body read. */
  lat: number[];
  status: number[];
  /** Response texts, when asked for. */
  body?: string[];
  /** The client thread's CPU for the batch, ms (thread mode only). */
  clientCpuMs?: number;
}

export interface HttpClient {
  mode: 'thread' | 'inline';
  /** Sends `requests` with at most `concurrency` in flight and answers when all are done. */
  run(requests: HttpRequest[], concurrency: number, keepBodies?: boolean): Promise<BatchResult>;
  close(): Promise<void>;
}

export function inlineHttpClient(): HttpClient {
  return {
    mode: 'inline',
    async run(requests, concurrency, keepBodies) {
      const n = requests.length;
      const out: BatchResult = { lat: new Array(n), status: new Array(n), ...(keepBodies ? { body: new Array(n) } : {}) };
      await pool(requests, concurrency, async (r, i) => {
        const s = performance.now();
        const res = await fetch(r.url, { method: r.method, headers: r.headers, ...(r.body !== undefined ? { body: r.body } : {}) });
        const text = await res.text();
        out.status[i] = res.status;
        if (out.body) out.body[i] = text;
        out.lat[i] = performance.now() - s;
      });
      return out;
    },
    close: async () => {},
  };
}

export function threadHttpClient(): HttpClient {
  const worker = new Worker(new URL('./http-client-worker.mjs', import.meta.url));
  worker.unref();
  let seq = 0;
  const waiting = new Map<number, (r: BatchResult) => void>();
  worker.on('message', (m: { id: number; lat: number[]; status: number[]; body?: string[]; cpuMs: number }) => {
    const done = waiting.get(m.id);
    waiting.delete(m.id);
    done?.({ lat: m.lat, status: m.status, ...(m.body ? { body: m.body } : {}), ...(Number.isFinite(m.cpuMs) ? { clientCpuMs: m.cpuMs } : {}) });
  });
  return {
    mode: 'thread',
    run(requests, concurrency, keepBodies) {
      const id = ++seq;
      return new Promise<BatchResult>((resolve, reject) => {
        waiting.set(id, resolve);
        worker.once('error', reject);
        worker.postMessage({ id, requests, concurrency, keepBodies: keepBodies === true });
      });
    },
    close: async () => {
      await worker.terminate();
    },
  };
}
