import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * What Node's HTTP parser refuses before any handler runs is answered in the developer error body
 * with an X-Request-Id (h15tour): before, a 20 kB PAYMENT-SIGNATURE header got Node's bare 431 with
 * an empty body, and a malformed request line a bare 400. Raw sockets to a real service.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

/** Sends `raw` on a fresh connection; the whole answer once the service closes it. */
function rawRequest(raw: string): Promise<string> {
  const { hostname, port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => socket.write(raw));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parsed(answer: string): { status: number; headers: string; body: unknown } {
  const [head, body] = answer.split('\r\n\r\n', 2) as [string, string];
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) };
}

describe("requests Node's parser refuses", () => {
  it('headers over 16 kB: 431 in the developer error body, with an X-Request-Id', async () => {
    const a = parsed(await rawRequest(`GET /api/checkout/pay_x/x402 HTTP/1.1\r\nHost: localhost\r\nPAYMENT-SIGNATURE: ${'A'.repeat(20_000)}\r\n\r\n`));
    expect(a.status).toBe(431);
    expect(a.headers).toContain('content-type: application/json');
    expect(a.headers).toMatch(/x-request-id: req_[0-9a-f-]{36}/);
    expect(a.body).toEqual({ error: { type: 'invalid_request_error', message: 'Request headers are too large (at most 16 kB in all).' } });
  });

  it('a malformed request line: 400 in the developer error body', async () => {
    const a = parsed(await rawRequest('NOT A REQUEST\r\n\r\n'));
    expect(a.status).toBe(400);
    expect(a.body).toEqual({ error: { type: 'invalid_request_error', message: 'Malformed HTTP request.' } });
  });
});
