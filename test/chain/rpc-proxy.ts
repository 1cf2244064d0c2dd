/**
 * A JSON-RPC proxy in front of a real anvil, for faults a real network has and anvil does not:
 * a send whose answer is lost after the node took it, a node refusing a transaction, a
 * provider refusing wide eth_getLogs ranges, a lagging backend. Counts requests per method.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcCall {
  method: string;
  params: unknown[];
}

export type ProxyAction =
  /** Forward to the node and relay its answer (the default). */
  | 'forward'
  /** Forward to the node, then drop the connection without answering (the node took it). */
  | 'forward-then-reset'
  /** Answer with this JSON-RPC error; the node never sees the request. */
  | { error: { code: number; message: string } }
  /** Answer with this result; the node never sees the request. */
  | { result: unknown };

export interface RpcProxy {
  url: string;
  /** Decides what happens to each request; `undefined` forwards. */
  rule: ((call: RpcCall) => ProxyAction | undefined) | undefined;
  /** Requests seen per method since the last `resetCounts()`. */
  counts: Map<string, number>;
  /** The requests themselves, since the last `resetCounts()`. */
  calls: RpcCall[];
  resetCounts(): void;
  count(method: string): number;
  close(): Promise<void>;
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const counts = new Map<string, number>();
  const calls: RpcCall[] = [];
  const proxy: RpcProxy = {
    url: '',
    rule: undefined,
    counts,
    calls,
    resetCounts: () => {
      counts.clear();
      calls.length = 0;
    },
    count: (m) => counts.get(m) ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const forward = async (body: string) => {
    const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: res.status, text: await res.text() };
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let parsed: { id?: unknown; method?: string; params?: unknown[] } | unknown[];
        try {
          parsed = JSON.parse(body);
        } catch {
          parsed = [];
        }
        const single = Array.isArray(parsed) ? undefined : parsed;
        if (single?.method) {
          counts.set(single.method, (counts.get(single.method) ?? 0) + 1);
          calls.push({ method: single.method, params: single.params ?? [] });
        }
        const action = single?.method ? (proxy.rule?.({ method: single.method, params: single.params ?? [] }) ?? 'forward') : 'forward';
        try {
          if (action === 'forward' || action === 'forward-then-reset') {
            const answer = await forward(body);
            if (action === 'forward-then-reset') {
              req.socket.destroy();
              return;
            }
            res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text);
            return;
          }
          const reply = 'error' in action ? { jsonrpc: '2.0', id: single?.id, error: action.error } : { jsonrpc: '2.0', id: single?.id, result: action.result };
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
        } catch {
          req.socket.destroy();
        }
      })();
    });
  });
  // Keep-alive sockets would hold close() open.
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = proxy.close;
  proxy.close = () => {
    server.closeAllConnections();
    return close();
  };
  return proxy;
}
