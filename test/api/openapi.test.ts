import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileErrors, validate } from '@readme/openapi-parser';
import { call, startTestService, type TestService } from '../helpers/service.js';
import { openApiPath } from '../../src/http/openapi.js';

let s: TestService;
let doc: any;

beforeAll(async () => {
  s = await startTestService();
  const r = await call(`${s.api}/openapi.json`);
  expect(r.status).toBe(200);
  doc = r.body;
});
afterAll(() => s.stop({ removeData: true }));

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
}

/** Every (method, path) the express app routes, found by walking its router stack. */
function servedRoutes(stack: Layer[], prefix = '', out: string[] = []): string[] {
  for (const l of stack) {
    if (l.route) {
      for (const m of Object.keys(l.route.methods)) out.push(`${m} ${prefix}${l.route.path}`);
    } else if (l.handle?.stack) {
      const p = typeof l.rawPath === 'string' && l.rawPath !== '/' ? l.rawPath : '';
      servedRoutes(l.handle.stack, prefix + p, out);
    }
  }
  return out;
}

/** Documented (method, full path) pairs; paths outside /api carry their own server. */
function documented(d: any): Set<string> {
  const out = new Set<string>();
  for (const [p, item] of Object.entries<any>(d.paths)) {
    const full = item.servers ? p : `/api${p}`;
    for (const m of ['get', 'post', 'put', 'patch', 'delete']) if (item[m]) out.add(`${m} ${full}`);
  }
  return out;
}

/** HTML pages (/app, /pay/:id, /docs, /claim/:token) are the web app, not the JSON API. */
const isPage = (route: string) => / \/(app|pay|docs|claim)(\/|$)/.test(route) || route === 'get /';

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (independent validator)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc));
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
    // The validator is not a rubber stamp: a broken copy fails.
    const broken = structuredClone(doc);
    delete broken.paths['/v1/payments'].post.responses;
    broken.paths['/v1/payments'].post.requestBody.content['application/json'].schema = { $ref: '#/components/schemas/Nope' };
    expect((await validate(broken)).valid).toBe(false);
  });

  it('documents every route the app serves', () => {
    const served = servedRoutes((s.app as unknown as { router: { stack: Layer[] } }).router.stack)
      .filter((r) => !isPage(r))
      .map((r) => {
        const [m, p] = r.split(' ');
        return `${m} ${openApiPath(p!)}`;
      });
    expect(served.length).toBeGreaterThan(20);
    const missing = served.filter((r) => !documented(doc).has(r));
    expect(missing).toEqual([]);
  });

  it('covers every route of DESIGN.md section 4', () => {
    const design = [
      'post /api/v1/payments',
      'get /api/v1/payments/{id}',
      'get /api/v1/payments',
      'get /api/checkout/{id}',
      'get /api/v1/ping',
      'post /api/checkout/{id}/authorization',
      'post /api/checkout/{id}/settle',
      'post /api/webhook-secret',
      'put /api/webhook-endpoint',
      'get /api/webhook-deliveries',
      'post /api/webhook-deliveries/{id}/redeliver',
      'post /api/chat',
      'post /api/chat/confirm',
      'post /api/chat/cancel',
      'post /api/telegram/webhook',
      'get /api/keys',
      'post /api/keys',
      'delete /api/keys/{id}',
      'post /api/agent/settle',
      'post /api/auth/signup',
      'post /api/auth/login',
      'post /api/auth/logout',
      'get /api/me',
      'get /api/openapi.json',
      'get /healthz',
      'get /readyz',
      'post /api/dev/faucet',
    ];
    const have = documented(doc);
    expect(design.filter((r) => !have.has(r))).toEqual([]);
  });

  it('covers every route of issue 15 (refunds, cancel, events, webhook endpoints), with their schemas', () => {
    const issue15 = [
      'post /api/v1/payments/{id}/refunds',
      'get /api/v1/payments/{id}/refunds',
      'get /api/v1/refunds/{id}',
      'post /api/v1/payments/{id}/cancel',
      'get /api/v1/events',
      'get /api/v1/events/{id}',
      'get /api/webhook-endpoint',
      'put /api/webhook-endpoint',
      'get /api/webhook-endpoints',
      'post /api/webhook-endpoints',
      'get /api/webhook-endpoints/{id}',
      'patch /api/webhook-endpoints/{id}',
      'delete /api/webhook-endpoints/{id}',
    ];
    const have = documented(doc);
    expect(issue15.filter((r) => !have.has(r))).toEqual([]);
    const create = doc.paths['/v1/payments/{id}/refunds'].post;
    expect(create.parameters.map((p: any) => p.name)).toContain('Idempotency-Key');
    expect(create.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Refund' });
    expect(doc.components.schemas.Refund.properties.status.enum).toEqual(['pending', 'succeeded', 'failed']);
    const events = doc.paths['/v1/events'].get.parameters.map((p: any) => p.name).sort();
    expect(events).toEqual(['created_gte', 'created_lte', 'limit', 'payment', 'starting_after', 'type']);
  });

  it('covers the routes of issue 24 (spend policies, account and per key; receipts; the key set)', () => {
    const issue24 = [
      'get /api/policies',
      'put /api/policies',
      'get /api/keys/{id}/policy',
      'put /api/keys/{id}/policy',
      'get /api/policies/events',
      'get /api/agent/actions',
      'get /api/agent/actions/{id}/receipt',
      'get /.well-known/jwks.json',
    ];
    const have = documented(doc);
    expect(issue24.filter((r) => !have.has(r))).toEqual([]);
    for (const p of ['/policies', '/keys/{id}/policy']) {
      // Read by the person or a key; changed only by the signed-in person (no bearer scheme), with the password.
      expect(doc.paths[p].get.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
      expect(doc.paths[p].put.security).toEqual([{ sessionCookie: [] }]);
      // DESIGN section 11's flat body, or the editor's `{password, policy}` (h17policy).
      expect(doc.paths[p].put.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PutPolicyRequest' });
      expect(Object.keys(doc.paths[p].put.responses)).toContain('403');
    }
    expect(doc.components.schemas.PutPolicyInput.required).toEqual(expect.arrayContaining(['policy', 'password']));
    const design = ['per_transaction_usd', 'daily_usd', 'weekly_usd', 'monthly_usd', 'approval_threshold_usd', 'allow_recipients', 'block_recipients', 'allowed_actions'];
    const flat = (doc.components.schemas.PutPolicyRequest.anyOf as Array<{ properties: Record<string, { anyOf?: unknown[] }>; required: string[] }>).find((o) => 'daily_usd' in o.properties)!;
    expect(Object.keys(flat.properties).sort()).toEqual([...design, 'password'].sort());
    expect(flat.required).toEqual(['password']);
    expect(JSON.stringify(flat.properties.daily_usd)).toContain('"number"');
    // The answer's `policy` carries DESIGN's fields (numbers or null, `market`).
    expect(doc.components.schemas.PolicyView.required).toEqual(expect.arrayContaining(design));
    expect(doc.components.schemas.PolicyView.properties.daily_usd.type).toEqual(['number', 'null']);
    expect(JSON.stringify(doc.components.schemas.PolicyView.properties.allowed_actions)).toContain('"market"');
    expect(Object.keys(doc.components.schemas.SpendPolicy.properties).sort()).toEqual(
      ['allow_recipients', 'allowed_actions', 'approval_threshold_usd', 'block_recipients', 'breaker', 'currencies', 'usd'].sort(),
    );
  });

  it('points its servers at PUBLIC_URL/api, with health checks at the site root', () => {
    const publicUrl = s.deps.config.PUBLIC_URL;
    expect(doc.servers).toEqual([{ url: `${publicUrl}/api` }]);
    expect(doc.paths['/healthz'].servers).toEqual([{ url: publicUrl }]);
    expect(doc.paths['/v1/payments']).toBeDefined();
  });

  it('carries the zod limits: the document is generated from the same schemas that validate', () => {
    const create = doc.components.schemas.CreatePaymentInput;
    expect(create.required.sort()).toEqual(['amount', 'currency', 'redirect_url']);
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.amount).toMatchObject({ type: 'number', exclusiveMinimum: 0, maximum: 1_000_000_000 });
    expect(create.properties.currency).toMatchObject({ minLength: 2, maxLength: 8 });
    expect(create.properties.reference).toMatchObject({ maxLength: 64 });
    expect(create.properties.merchant_name).toMatchObject({ maxLength: 80 });
    expect(create.properties.description).toMatchObject({ maxLength: 300 });
    // Input side: a default makes the field optional; it is stated in words, because generators
    // (openapi-typescript) read a `default` keyword as "always present" and would require it.
    expect(create.properties.expires_in_minutes).toMatchObject({ type: 'integer', minimum: 1, maximum: 1440 });
    expect(create.properties.expires_in_minutes.default).toBeUndefined();
    expect(create.properties.expires_in_minutes.description).toMatch(/Default: 60\./);
    expect(create.required).not.toContain('expires_in_minutes');
    expect(create.properties.metadata).toMatchObject({ type: 'object', maxProperties: 50 });
    expect(create.properties.metadata.propertyNames).toMatchObject({ maxLength: 40 });
    expect(doc.components.schemas.CreateKeyInput.properties.label).toMatchObject({ minLength: 1, maxLength: 60 });
    expect(doc.components.schemas.AgentMessageInput.required).toEqual(['message']);
  });

  it('describes operations: auth, bodies, responses and parameters', () => {
    const create = doc.paths['/v1/payments'].post;
    expect(create.security).toEqual([{ bearerAuth: [] }]);
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreatePaymentInput' });
    expect(create.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Payment' });
    expect(create.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(create.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');

    const list = doc.paths['/v1/payments'].get;
    const limit = list.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false, schema: { minimum: 1, maximum: 100, default: 10 } });
    expect(list.parameters.find((p: { name: string }) => p.name === 'status').schema.enum).toContain('expired');

    const checkout = doc.paths['/checkout/{id}'].get;
    expect(checkout.security).toEqual([]);
    expect(checkout.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
    expect(checkout.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CheckoutError' });

    expect(doc.paths['/keys'].get.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
    expect(doc.paths['/me'].get.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]); // issue 27: a key reads its own account
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'sp_session' });

    // The checkout view schema lists exactly the public fields.
    expect(Object.keys(doc.components.schemas.CheckoutView.properties)).not.toContain('redirect_url');
    expect(Object.keys(doc.components.schemas.CheckoutView.properties)).not.toContain('metadata');
    const ids = Object.values<any>(doc.paths).flatMap((item) => ['get', 'post', 'put', 'delete'].filter((m) => item[m]).map((m) => item[m].operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('leaves the dev-only routes out of a production document', async () => {
    const prod = await startTestService({ NODE_ENV: 'production' });
    try {
      const d = (await call(`${prod.api}/openapi.json`)).body;
      expect(d.paths['/dev/faucet']).toBeUndefined();
      expect(d.paths['/v1/payments']).toBeDefined();
      expect((await validate(structuredClone(d))).valid).toBe(true);
    } finally {
      await prod.stop({ removeData: true });
    }
  });
});

describe('every response the HTTP tests see is checked against this document (test/helpers/openapi-conformance.ts)', () => {
  it('flags an undocumented field, an undocumented status and a wrong type; passes a true answer', async () => {
    const { conformanceProblems } = await import('../helpers/openapi-conformance.js');
    const json = 'application/json; charset=utf-8';
    const url = `${s.api}/v1/ping`;
    const real = await call(url, { headers: { authorization: 'Bearer nope' } });
    expect(await conformanceProblems('GET', url, real.status, json, real.body)).toEqual([]);
    expect((await conformanceProblems('GET', `${s.url}/healthz`, 200, json, { ok: true, ready: true, extra: 1 })).join()).toMatch(/additional/);
    expect((await conformanceProblems('GET', `${s.url}/healthz`, 418, json, { ok: true })).join()).toMatch(/not documented/);
    expect((await conformanceProblems('GET', `${s.url}/healthz`, 200, json, { ok: 'yes' })).join()).toMatch(/boolean/);
  });
});
