import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** One HTTP/1.1 request over a raw socket; rejects if no complete answer arrives in time. */
function rawRequest(url: string, method: string, path: string, body?: string): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${method} ${path} within 5 s`));
    }, 5_000);
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      const lines = [`${method} ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close'];
      if (body !== undefined) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
      socket.write(lines.join('\r\n') + '\r\n\r\n' + (body ?? ''));
    });
    socket.on('data', (chunk) => (data += chunk));
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      const [head, ...rest] = data.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head!.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const text = rest.join('\r\n\r\n');
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text ? JSON.parse(text) : undefined });
    });
  });
}

describe('requests during start-up are answered at once', () => {
  let svc: TestService | undefined;
  afterAll(async () => {
    await svc?.stop({ removeData: true });
  });

  it('healthz up but not ready, readyz and every other route 503 in their error shape with Retry-After', async () => {
    const seen: Record<string, RawResponse> = {};
    svc = await startTestService(
      {},
      {
        // Start-up waits for these probes: the store, the chain and the routes do not exist yet.
        onListening: async (url) => {
          const probes: Array<[string, string, string?]> = [
            ['GET', '/healthz'],
            ['GET', '/readyz'],
            ['POST', '/api/v1/payments', '{"amount":5,"currency":"USD","redirect_url":"https://shop.example/done"}'],
            ['GET', '/api/checkout/pay_abcdefghijklmnop'],
            ['POST', '/api/agent/settle', '{"message":"balance"}'],
            ['GET', '/app'],
          ];
          const answers = await Promise.all(probes.map(([m, p, b]) => rawRequest(url, m, p, b)));
          probes.forEach(([m, p], i) => (seen[`${m} ${p}`] = answers[i]!));
        },
      },
    );

    expect(seen['GET /healthz']).toMatchObject({ status: 200, body: { ok: true, ready: false } });
    expect(seen['GET /readyz']).toMatchObject({ status: 503, body: { ok: false } });
    const developer = seen['POST /api/v1/payments']!;
    expect(developer.status).toBe(503);
    expect(developer.body).toEqual({ error: { type: 'api_error', message: expect.stringMatching(/starting/) } });
    expect(seen['GET /api/checkout/pay_abcdefghijklmnop']).toMatchObject({ status: 503, body: { ok: false, error: expect.any(String) } });
    expect(seen['POST /api/agent/settle']).toMatchObject({ status: 503, body: { ok: false, reply: expect.any(String) } });
    expect(seen['GET /app']!.status).toBe(503);
    for (const key of Object.keys(seen).filter((k) => k !== 'GET /healthz')) {
      expect(Number(seen[key]!.headers['retry-after']), key).toBeGreaterThan(0);
    }

    // Once started, the same socket path reaches the app.
    expect(await rawRequest(svc.url, 'GET', '/healthz')).toMatchObject({ status: 200, body: { ok: true, ready: true } });
    expect(await rawRequest(svc.url, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ok: true } });
  });
});
