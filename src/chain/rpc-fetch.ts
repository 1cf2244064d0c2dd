/**
 * A `fetch` for viem's HTTP transport to the embedded anvil, over `node:http` with a keep-alive
 * agent. The global fetch (undici and its web streams) cost more CPU per JSON-RPC round trip
 * than anvil spent answering it: 10-15% of the service's CPU per settlement in the profile
 * (docs/performance.md, issue 23 point 2). Only what viem's HTTP client reads is provided:
 * `ok`, `status`, `statusText`, `headers.get`, `text()` and `body: null` (so the body is read
 * whole by `text()`); the request honours `signal` (viem's timeout aborts through it).
 * Loopback http only; a real network keeps the global fetch (TLS, proxies, redirects).
 */
import http from 'node:http';

interface FetchInit {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal | null;
}

export interface MiniResponse {
  ok: boolean;
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  body: null;
  text(): Promise<string>;
}

export function loopbackFetch(maxSockets = 16): (url: string | URL, init?: FetchInit) => Promise<MiniResponse> {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return (url, init = {}) =>
    new Promise<MiniResponse>((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
      const body = init.body ?? '';
      const req = http.request(
        url,
        {
          agent,
          method: init.method ?? 'POST',
          headers: { ...init.headers, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', fail);
          res.on('end', () => {
            signal?.removeEventListener('abort', onAbort);
            const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            resolve({
              ok: status >= 200 && status < 300,
              status,
              statusText: res.statusMessage ?? '',
              headers: {
                get: (name) => {
                  const v = res.headers[name.toLowerCase()];
                  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
                },
              },
              body: null,
              text: () => Promise.resolve(text),
            });
          });
        },
      );
      function fail(err: unknown) {
        signal?.removeEventListener('abort', onAbort);
        reject(err);
      }
      function onAbort() {
        req.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', fail);
      req.end(body);
    });
}

type LoopbackFetch = ReturnType<typeof loopbackFetch>;

interface Call {
  body: { jsonrpc: '2.0'; id: number; method: string; params: readonly unknown[] };
  resolve(result: unknown): void;
  reject(err: Error): void;
}

/** What `LoopbackRpc.call` rejects with when the node gave no result (the caller asks through viem). */
export class LoopbackRpcMiss extends Error {}

/**
 * The settle's per-settlement JSON-RPC call (its simulation) to the embedded anvil without
 * viem's request stack (batch scheduler copying its queue at each call, a timeout error built
 * per request, retry and dedupe wrappers, issue 23 seventh round): the calls of one tick go as
 * one JSON-RPC batch over the same keep-alive agent. Only a `result` is answered here; anything
 * else (an error answer, a failed or timed-out request, a malformed answer) rejects with
 * `LoopbackRpcMiss`, and the caller asks again through viem, whose retries and error shapes
 * then apply unchanged.
 */
export class LoopbackRpc {
  private queue: Call[] = [];
  private nextId = 0;

  constructor(
    private readonly url: string,
    private readonly fetchFn: LoopbackFetch,
    private readonly timeoutMs = 15_000,
  ) {}

  call(method: string, params: readonly unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => void this.flush());
      this.queue.push({ body: { jsonrpc: '2.0', id: ++this.nextId, method, params }, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const calls = this.queue;
    this.queue = [];
    let answers: unknown;
    try {
      const res = await this.fetchFn(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(calls.length === 1 ? calls[0]!.body : calls.map((c) => c.body)),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      answers = res.ok ? JSON.parse(await res.text()) : undefined;
    } catch {
      answers = undefined;
    }
    const byId = new Map<unknown, { result?: unknown }>();
    for (const a of Array.isArray(answers) ? answers : answers ? [answers] : []) {
      if (a && typeof a === 'object' && 'id' in a) byId.set((a as { id: unknown }).id, a as { result?: unknown });
    }
    for (const c of calls) {
      const a = byId.get(c.body.id);
      if (a && !('error' in a) && 'result' in a && a.result !== undefined && a.result !== null) c.resolve(a.result);
      else c.reject(new LoopbackRpcMiss(`${c.body.method}: no result`));
    }
  }
}
