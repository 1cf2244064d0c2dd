import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call } from '../helpers/service.js';

export interface Received {
  body: string;
  headers: http.IncomingHttpHeaders;
  json: any;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

/** A real merchant receiver on 127.0.0.1; `respond` picks the status for the n-th request (0-based). */
export async function startReceiver(
  respond: (r: Received, n: number) => number = () => 200,
  opts: { port?: number; path?: string } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const r = { body, headers: req.headers, json };
      const status = respond(r, received.length);
      received.push(r);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `nope ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${opts.path ?? '/hooks'}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A loopback port with nothing listening (connection refused). */
export async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Polls until `check` returns a truthy value; fails after `timeoutMs`. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function createPayment(api: string, key: string, extra: Record<string, unknown> = {}) {
  const res = await call(`${api}/v1/payments`, {
    key,
    body: { amount: 25, currency: 'USD', redirect_url: 'https://shop.example/done', reference: `ref-${Math.random()}`, metadata: { order: 'o-1' }, ...extra },
  });
  if (res.status !== 201) throw new Error(`create payment failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; status: string };
}

export async function deliveries(api: string, auth: { key?: string; cookie?: string }, query = '') {
  const res = await call(`${api}/webhook-deliveries${query}`, auth);
  if (res.status !== 200) throw new Error(`list deliveries failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as any[];
}
