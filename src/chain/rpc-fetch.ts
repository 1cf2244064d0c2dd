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
  // The node's URL is the same on every call: parsed once, not by `http.request` per request
  // (a WHATWG URL and its conversion to options each time; docs/performance.md, ninth round).
  let parsedFor: string | undefined;
  let target: { protocol: string; hostname: string; port: string; path: string; auth?: string } | undefined;
  return (url, init = {}) =>
    new Promise<MiniResponse>((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
      const body = init.body ?? '';
      const href = String(url);
      if (href !== parsedFor || !target) {
        const u = new URL(href);
        target = { protocol: u.protocol, hostname: u.hostname.replace(/^\[|\]$/g, ''), port: u.port, path: `${u.pathname}${u.search}` };
        if (u.username || u.password) target.auth = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
        parsedFor = href;
      }
      const req = http.request(
        {
          ...target,
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
