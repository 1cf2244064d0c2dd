/**
 * A deterministic fuzz of every operation in the service's own OpenAPI document, over real HTTP
 * against a running service (on lowdb here; the `pg` project runs this file again on PostgreSQL):
 * malformed and wrongly typed bodies, huge and odd values, unicode, missing and bad credentials,
 * wrong content types, junk path and query values. No answer may be a 5xx, an HTML error page,
 * a stack trace or no answer at all; every JSON answer of the API must be one the document
 * describes (status and body). Seeded (FUZZ_SEED) and bounded (FUZZ_CASES per operation), so a
 * failure is reproduced by running the file again with the seed it prints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceProblems } from '../helpers/openapi-conformance.js';
import { createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed23);
const CASES = Number(process.env.FUZZ_CASES ?? 8);

/** mulberry32: a small seeded generator, so every run sends the same requests. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]! };
}
type Rng = ReturnType<typeof generator>;

const ODD_VALUES: unknown[] = [
  null,
  true,
  -1,
  0,
  -0,
  1e308,
  -1e308,
  1.5e-300,
  2 ** 53 + 1,
  123.456789012345,
  '',
  ' ',
  '9'.repeat(400),
  'x'.repeat(5_000),
  '💸🏦 \u202e\u0000\u0007',
  '\ud800',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  'NaN',
  'Infinity',
  '1e309',
  '-0.0000001',
  `0x${'f'.repeat(40)}`,
  `0x${'z'.repeat(40)}`,
  `sk_live_${'a'.repeat(40)}`,
  '2026-13-45T99:99:99Z',
  `https://example.com/${'a'.repeat(3_000)}`,
  'javascript:alert(1)',
  [],
  {},
  [1, 'two', null],
  { nested: { deep: [null, { '': '' }] } },
  { __proto__: { polluted: true } },
];
const ODD_SEGMENTS = ['pay_doesnotexist', 'x', '%F0%9F%92%B8', '%E0%A4%A', '..%2F..%2Fetc', 'a'.repeat(600), '0', '-1', 'null', '%00', 'we_0000000000', 'qt_%20'];
const RAW_BODIES = ['{', '{"amount":', 'null', '[]', '"text"', '12', '1e309', 'true', '{"a":1}{"b":2}', '\u0000', '{"__proto__":{"x":1}}', `${'['.repeat(3_000)}${']'.repeat(3_000)}`];
const CONTENT_TYPES = ['application/json', 'application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/xml', undefined];

interface Operation {
  method: string;
  path: string;
  op: any;
}

interface Case {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

let svc: TestService;
let merchant: Merchant;
let paymentId: string;
let doc: any;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  merchant = await createMerchant(svc.api, 'Fuzz');
  const created = await fetch(`${svc.api}/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${merchant.key}` },
    body: JSON.stringify({ amount: 5, currency: 'USD', redirect_url: 'https://shop.example/done' }),
  });
  paymentId = ((await created.json()) as { id: string }).id;
  doc = await (await fetch(`${svc.api}/openapi.json`)).json();
}, 120_000);

afterAll(async () => {
  await svc?.stop({ removeData: true });
});

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    const full = item.servers ? p : `/api${p}`;
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      // Logging out ends the session the other cases use; it takes no input to fuzz.
      if (item[method] && !full.endsWith('/auth/logout')) out.push({ method, path: full, op: item[method] });
    }
  }
  return out;
}

/** The schema a $ref names, one level (enough to list a body's properties). */
function resolve(schema: any): any {
  const ref: string | undefined = schema?.$ref;
  return ref ? doc.components.schemas[ref.split('/').pop()!] : schema;
}

/** A plausible value for a JSON schema (first branch of a union, the enum's first member...), a few levels deep. */
function plausible(schema: any, depth = 0): unknown {
  const s = resolve(schema) ?? {};
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const branch = s.anyOf ?? s.oneOf;
  if (Array.isArray(branch)) return plausible(branch.find((b: any) => b.type !== 'null') ?? branch[0], depth);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (type === 'object' || s.properties) {
    if (depth > 3) return {};
    return Object.fromEntries(Object.entries<any>(s.properties ?? {}).map(([k, v]) => [k, plausible(v, depth + 1)]));
  }
  if (type === 'array') return depth > 3 ? [] : [plausible(s.items, depth + 1)];
  if (type === 'integer' || type === 'number') return s.minimum ?? 1;
  if (type === 'boolean') return true;
  if (s.format === 'uri' || /url/i.test(s.description ?? '')) return 'https://shop.example/done';
  return s.pattern ? 'x' : 'USD';
}

function oddBody(op: any, rng: Rng): string {
  const schema = resolve(op.requestBody?.content?.['application/json']?.schema);
  const roll = rng.next();
  if (roll < 0.2) return rng.pick(RAW_BODIES);
  if (roll < 0.25) return JSON.stringify({ blob: 'x'.repeat(150_000) });
  if (roll < 0.6 && schema) {
    // Deeper than validation: a plausible body with one field made odd.
    const body = plausible(schema);
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      const keys = Object.keys(body);
      if (keys.length) (body as Record<string, unknown>)[rng.pick(keys)] = rng.pick(ODD_VALUES);
    }
    return JSON.stringify(body);
  }
  const props = Object.keys(schema?.properties ?? {});
  const body: Record<string, unknown> = {};
  for (const name of props) if (rng.next() < 0.7) body[name] = rng.pick(ODD_VALUES);
  if (rng.next() < 0.2) body[rng.pick(['extra', '', '💸', 'constructor'])] = rng.pick(ODD_VALUES);
  return JSON.stringify(body);
}

function makeCase(o: Operation, rng: Rng): Case {
  const path = o.path.replace(/\{(\w+)\}/g, () => (rng.next() < 0.3 ? paymentId : rng.pick(ODD_SEGMENTS)));
  const query = new URLSearchParams();
  for (const p of o.op.parameters ?? []) {
    if (p.in === 'query' && rng.next() < 0.6) {
      const v = rng.pick(ODD_VALUES);
      query.append(p.name, typeof v === 'string' ? v.replaceAll('\u0000', '') : JSON.stringify(v) ?? '');
    }
  }
  if (rng.next() < 0.1) query.append('limit[]', '1');
  const headers: Record<string, string> = {};
  const auth = rng.pick(['key', 'key', 'key', 'cookie', 'none', 'bad', 'odd']);
  if (auth === 'key') headers.authorization = `Bearer ${merchant.key}`;
  else if (auth === 'cookie') headers.cookie = merchant.cookie;
  else if (auth === 'bad') headers.authorization = `Bearer sk_live_${'Z'.repeat(32)}`;
  else if (auth === 'odd') headers.authorization = rng.pick(['Bearer', 'Basic Zm9vOmJhcg==', `Bearer ${'x'.repeat(5_000)}`, 'Bearer sk_test_%%%']);
  // fetch sends no body with a GET; a DELETE sometimes carries one.
  const withBody = o.method === 'get' ? false : o.method !== 'delete' || rng.next() < 0.2;
  const contentType = rng.pick(CONTENT_TYPES);
  if (contentType) headers['content-type'] = contentType;
  if (o.path.endsWith('/mcp')) headers.accept = 'application/json, text/event-stream';
  const qs = query.toString();
  return { method: o.method.toUpperCase(), url: `${svc.url}${path}${qs ? `?${qs}` : ''}`, headers, ...(withBody ? { body: oddBody(o.op, rng) } : {}) };
}

const STACK = /\n\s+at .+:\d+:\d+|node_modules\/|\bat (async )?[\w.<>]+ \((file:|\/)/;

async function check(o: Operation, c: Case): Promise<string[]> {
  const where = `${c.method} ${c.url.slice(0, 160)} [${c.headers['content-type'] ?? '-'}; ${c.headers.authorization ? 'auth' : c.headers.cookie ? 'cookie' : 'anon'}] body=${(c.body ?? '').slice(0, 120)}`;
  let res: Response;
  try {
    res = await fetch(c.url, { method: c.method, headers: c.headers, body: c.body, signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    return [`${where}: no answer (${(e as Error).message})`];
  }
  const type = res.headers.get('content-type') ?? '';
  // An SSE stream (MCP) is read no further: it stays open by design.
  const text = type.startsWith('text/event-stream') ? (await res.body?.cancel(), '') : await res.text();
  const found: string[] = [];
  if (res.status >= 500 && !(res.status === 503 && o.op.responses?.['503'])) found.push(`${where}: ${res.status} ${text.slice(0, 200)}`);
  if (STACK.test(text)) found.push(`${where}: stack trace in the answer: ${text.slice(0, 300)}`);
  if (c.url.startsWith(`${svc.api}/`) && /html/.test(type)) found.push(`${where}: HTML answer ${res.status}`);
  if (type.includes('application/json') && c.url.startsWith(`${svc.api}/`)) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      found.push(`${where}: answer is not JSON`);
    }
    if (body !== undefined) for (const p of await conformanceProblems(c.method, c.url, res.status, type, body)) found.push(`${where}: ${p}`);
  }
  return found;
}

describe(`fuzz every OpenAPI operation (seed ${SEED}, ${CASES} cases each)`, () => {
  it('no 5xx, HTML error page, stack trace or hanging request; every API answer is documented', async () => {
    const rng = generator(SEED);
    const ops = operations();
    expect(ops.length).toBeGreaterThan(50);
    const findings: string[] = [];
    for (const o of ops) {
      for (let i = 0; i < CASES; i++) findings.push(...(await check(o, makeCase(o, rng))));
    }
    // The service is still whole afterwards.
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    const unique = [...new Set(findings)];
    expect(unique.length, `${unique.length} findings (seed ${SEED}):\n${unique.slice(0, 60).join('\n')}`).toBe(0);
  }, 600_000);

  // Found by the fuzz on PostgreSQL (its text refuses NUL): each was a 500 there.
  it('a NUL character in an id or a text field is a 4xx on both stores', async () => {
    const key = { authorization: `Bearer ${merchant.key}` };
    const json = { 'content-type': 'application/json' };
    const cases: Case[] = [
      { method: 'DELETE', url: `${svc.api}/keys/%00`, headers: { cookie: merchant.cookie } },
      { method: 'GET', url: `${svc.api}/checkout/%00/x402`, headers: {} },
      { method: 'GET', url: `${svc.api}/checkout/pay_%00`, headers: {} },
      { method: 'GET', url: `${svc.api}/app/dashboard/payments/%00`, headers: { cookie: merchant.cookie } },
      { method: 'GET', url: `${svc.api}/v1/payments/pay_%00`, headers: key },
      { method: 'GET', url: `${svc.api}/v1/payments?starting_after=pay_%00`, headers: key },
      {
        method: 'POST',
        url: `${svc.api}/v1/payments`,
        headers: { ...key, ...json },
        body: JSON.stringify({ amount: 5, currency: 'USD', redirect_url: 'https://shop.example/done', description: 'a\u0000b', metadata: { note: 'x\u0000' } }),
      },
      { method: 'POST', url: `${svc.api}/keys`, headers: { cookie: merchant.cookie, ...json }, body: JSON.stringify({ label: 'nul\u0000' }) },
    ];
    const findings: string[] = [];
    for (const c of cases) {
      const o = operations().find((x) => x.method === c.method.toLowerCase() && new RegExp(`^${x.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(new URL(c.url).pathname));
      findings.push(...(await check(o ?? { method: c.method, path: c.url, op: {} }, c)));
    }
    expect(findings).toEqual([]);
  });
});
