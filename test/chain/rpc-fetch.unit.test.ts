import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackFetch } from '../../src/chain/rpc-fetch.js';

// The loopback JSON-RPC client parses its node's URL once and reuses it (issue 23, ninth round):
// each request still goes to the URL it is given (host, port, path, query, credentials), and a
// different URL is parsed anew.
describe('loopbackFetch', () => {
  const seen: { url?: string; host?: string; auth?: string; body: string }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url, host: req.headers.host, auth: req.headers.authorization, body });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ echo: body }));
    });
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('sends each request to the URL it is given, parsed once per URL', async () => {
    const fetchFn = loopbackFetch();
    const a = `http://127.0.0.1:${port}/rpc?k=1`;
    const b = `http://user:p%40ss@localhost:${port}/other`;
    for (const [url, body] of [[a, '1'], [a, '2'], [b, '3'], [a, '4']] as const) {
      const r = await fetchFn(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect(r.ok).toBe(true);
      expect(r.headers.get('Content-Type')).toBe('application/json');
      expect(JSON.parse(await r.text())).toEqual({ echo: body });
    }
    expect(seen.map((s) => [s.url, s.host, s.auth, s.body])).toEqual([
      ['/rpc?k=1', `127.0.0.1:${port}`, undefined, '1'],
      ['/rpc?k=1', `127.0.0.1:${port}`, undefined, '2'],
      ['/other', `localhost:${port}`, `Basic ${Buffer.from('user:p@ss').toString('base64')}`, '3'],
      ['/rpc?k=1', `127.0.0.1:${port}`, undefined, '4'],
    ]);
  });
});
