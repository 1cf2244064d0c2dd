import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceProblems } from '../helpers/openapi-conformance.js';

/**
 * The conformance helper caches a document per origin. A port reused by another service in the
 * same worker must be judged against the document that service serves, not the cached one.
 */
const docWith = (statuses: string[]) => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  components: { schemas: {} },
  paths: {
    '/v1/thing': {
      post: {
        responses: Object.fromEntries(
          statuses.map((s) => [s, { description: s, content: { 'application/json': { schema: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } } } } }]),
        ),
      },
    },
  },
});

let served: unknown = docWith(['200']);
let server: http.Server;
let origin = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(req.url === '/api/openapi.json' ? served : {}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('openapi conformance helper', () => {
  it('judges a response against the document the origin serves now, and still reports a true mismatch', async () => {
    const url = `${origin}/api/v1/thing`;
    expect(await conformanceProblems('POST', url, 200, 'application/json', { ok: true })).toEqual([]);
    expect(await conformanceProblems('POST', url, 404, 'application/json', { ok: false })).toEqual(['POST /api/v1/thing -> 404: status not documented']);
    // Another service on the same origin now documents the 404: the cached document must not judge it.
    served = docWith(['200', '404']);
    expect(await conformanceProblems('POST', url, 404, 'application/json', { ok: false })).toEqual([]);
    // A body that breaks the served document is still a problem.
    expect((await conformanceProblems('POST', url, 200, 'application/json', { ok: 'yes' })).join()).toMatch(/body\/ok must be boolean/);
  });
});
