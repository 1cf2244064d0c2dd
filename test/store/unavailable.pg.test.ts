/**
 * When PostgreSQL refuses the service's connections ("too many connections", SQLSTATE 53300),
 * every door answers 503 with Retry-After in its route family's error shape, never a 500, a
 * stack or a connection left hanging; and once connections are allowed again the service
 * serves as before (docs/store.md, "When the database is unavailable").
 *
 * The service runs as a role of its own on a database of its own; the refusal is that role's
 * CONNECTION LIMIT set to 0 and its sessions ended, so the machine's shared max_connections is
 * never filled (other test runs use the same server).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_ADMIN_URL, databaseUrl, madeHere } from '../helpers/pg.js';
import { PgStore } from '../../src/store/index.js';
import { isStoreUnavailable } from '../../src/lib/store-unavailable.js';
import { Quotes } from '../../src/quotes/quotes.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';

const tag = randomBytes(5).toString('hex');
const role = `sp_h_role_${tag}`;
const database = `pg_h_unavail_${tag}`;

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** The role may not connect; its open sessions (the service's pool and listener) are ended. */
async function refuseConnections(): Promise<void> {
  await admin(`ALTER ROLE "${role}" CONNECTION LIMIT 0`);
  await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);
}

let svc: TestService;
let merchant: Merchant;
let paymentId: string;

beforeAll(async () => {
  await admin(`CREATE ROLE "${role}" LOGIN`);
  await admin(`CREATE DATABASE "${database}" OWNER "${role}"`);
  // Made here, not by the helpers: counted against the file's connection budget all the same (pg-setup).
  madeHere.add(database);
  const url = new URL(databaseUrl(database));
  url.username = role;
  svc = await startTestService({ DATABASE_URL: url.toString(), RECONCILE_INTERVAL: '1h' });
  merchant = await createMerchant(svc.api, 'Unavailable');
  const created = await call(`${svc.api}/v1/payments`, { key: merchant.key, body: { amount: 5, currency: 'USD', redirect_url: 'https://shop.example/done' } });
  expect(created.status).toBe(201);
  paymentId = created.body.id;
}, 120_000);

afterAll(async () => {
  await admin(`ALTER ROLE "${role}" CONNECTION LIMIT -1`).catch(() => undefined);
  await svc?.stop({ removeData: true });
  await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin(`DROP ROLE IF EXISTS "${role}"`);
});

type Shape = 'developer' | 'checkout' | 'agent';
interface Probe {
  name: string;
  shape: Shape;
  send(): Promise<{ status: number; body: any; headers: Headers }>;
}

const json = (body: unknown) => ({ 'content-type': 'application/json', body: JSON.stringify(body) });

function probes(): Probe[] {
  const api = svc.api;
  const key = merchant.key;
  const raw = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${api}${path}`, init);
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* kept as text: the assertion below shows it */
    }
    return { status: res.status, body, headers: res.headers };
  };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const { body: text, ...ct } = json(body);
    return raw(path, { method: 'POST', headers: { ...ct, authorization: `Bearer ${key}`, ...headers }, body: text });
  };
  return [
    { name: 'POST /v1/payments', shape: 'developer', send: () => post('/v1/payments', { amount: 5, currency: 'USD', redirect_url: 'https://shop.example/done' }) },
    { name: 'GET /v1/payments', shape: 'developer', send: () => raw('/v1/payments', { headers: { authorization: `Bearer ${key}` } }) },
    { name: 'POST /quotes', shape: 'developer', send: () => post('/quotes', { amount: '10', currency: 'USD', to_currency: 'KES' }) },
    { name: 'GET /v1/ping', shape: 'developer', send: () => raw('/v1/ping', { headers: { authorization: `Bearer ${key}` } }) },
    { name: 'POST /auth/login', shape: 'developer', send: () => post('/auth/login', { email: merchant.email, password: 'correct horse battery' }) },
    { name: 'GET /checkout/:id', shape: 'checkout', send: () => raw(`/checkout/${paymentId}`) },
    { name: 'POST /checkout/:id/authorization', shape: 'checkout', send: () => post(`/checkout/${paymentId}/authorization`, { from: `0x${'1'.repeat(40)}` }) },
    { name: 'POST /agent/settle', shape: 'agent', send: () => post('/agent/settle', { message: 'what is my balance?' }) },
    { name: 'POST /x402/verify', shape: 'developer', send: () => post('/x402/verify', { x402Version: 2, paymentPayload: {}, paymentRequirements: {} }) },
    {
      name: 'POST /mcp',
      shape: 'developer',
      send: () =>
        post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, { accept: 'application/json, text/event-stream' }),
    },
  ];
}

function expectUnavailable(p: Probe, r: { status: number; body: any; headers: Headers }): void {
  const where = `${p.name}: ${r.status} ${typeof r.body === 'string' ? r.body.slice(0, 200) : JSON.stringify(r.body)}`;
  expect(r.status, where).toBe(503);
  expect(Number(r.headers.get('retry-after')), where).toBeGreaterThan(0);
  expect(r.headers.get('content-type'), where).toMatch(/^application\/json/);
  const text = JSON.stringify(r.body);
  expect(text, where).not.toMatch(/\bat .+:\d+:\d+|node_modules|too many connections/);
  if (p.shape === 'developer') {
    expect(r.body, where).toEqual({ error: { type: 'api_error', message: expect.any(String) } });
  } else if (p.shape === 'checkout') {
    expect(r.body, where).toEqual({ ok: false, error: expect.any(String) });
  } else {
    expect(r.body, where).toEqual({ ok: false, reply: expect.any(String) });
  }
}

describe('PostgreSQL refusing connections', () => {
  it('answers 503 with Retry-After in each door’s error shape, then serves again once connections are allowed', async () => {
    await refuseConnections();
    for (const p of probes()) expectUnavailable(p, await p.send());

    await admin(`ALTER ROLE "${role}" CONNECTION LIMIT -1`);
    // The pool opens fresh connections on the next requests: no restart needed.
    const create = probes()[0]!;
    let r = await create.send();
    for (let i = 0; i < 50 && r.status === 503; i++) r = await create.send();
    expect(r.status).toBe(201);
    expect((await call(`${svc.api}/checkout/${paymentId}`)).status).toBe(200);
    expect((await call(`${svc.api}/v1/ping`, { key: merchant.key })).status).toBe(200);
  });

  it('a statement that outlives statement_timeout (a table locked by another session) is a 503 too, also past auth in the agent and MCP doors', async () => {
    await admin(`ALTER ROLE "${role}" SET statement_timeout = '300ms'`);
    // The pool's sessions are replaced by ones that carry the timeout.
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);
    const locker = new pg.Client({ connectionString: databaseUrl(database) });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE markets, quotes IN ACCESS EXCLUSIVE MODE');
      const [create, , quote, , , , , agent] = probes();
      // Past the pool's reconnect: an ordinary read answers again.
      let ping = await probes()[3]!.send();
      for (let i = 0; i < 50 && ping.status !== 200; i++) ping = await probes()[3]!.send();
      expect(ping.status).toBe(200);
      expect((await create!.send()).status).toBe(201);
      expectUnavailable(quote!, await quote!.send());
      const listing = await fetch(`${svc.api}/agent/settle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${merchant.key}` },
        body: JSON.stringify({ message: 'show me the open markets' }),
      });
      const listed = { status: listing.status, body: await listing.json(), headers: listing.headers };
      expectUnavailable(agent!, listed);
      const mcp = await fetch(`${svc.api}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${merchant.key}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_markets', arguments: {} } }),
      });
      expect(mcp.status).toBe(200);
      const text = await mcp.text();
      const rpc = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: '))!.slice(6));
      expect(rpc.result?.isError, text).toBe(true);
      expect(rpc.result.structuredContent).toMatchObject({ ok: false, retry_after_seconds: expect.any(Number) });
      expect(text).not.toMatch(/statement timeout|canceling statement/);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
      await admin(`ALTER ROLE "${role}" RESET statement_timeout`);
    }
  });
});

describe('a pool with every connection taken', () => {
  it('fails a waiting caller after the pool timeout with an error the doors answer as 503, instead of leaving it waiting', async () => {
    const store = await PgStore.open(databaseUrl(database), { poolMax: 1, poolTimeoutMs: 200, migrate: false });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    try {
      const holding = store.transaction(async () => {
        entered();
        await held;
      });
      await inside;
      const waited = await store.table(Quotes).get('qt_none').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(waited).toBeInstanceOf(Error);
      expect(isStoreUnavailable(waited)).toBe(true);
      release();
      await holding;
      // The connection is back: the same read answers.
      expect(await store.table(Quotes).get('qt_none')).toBeUndefined();
    } finally {
      release();
      await store.close();
    }
  });
});

describe('the pool fits the connections PostgreSQL allows', () => {
  it('a role limited to 3 connections gets a pool of 2 (one left for LISTEN): six concurrent transactions queue instead of being refused', async () => {
    const small = `sp_h_small_${tag}`;
    await admin(`CREATE ROLE "${small}" LOGIN CONNECTION LIMIT 3`);
    const url = new URL(databaseUrl(database));
    url.username = small;
    const store = await PgStore.open(url.toString(), { poolMax: 10, migrate: false });
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let inside = 0;
      let two!: () => void;
      const twoInside = new Promise<void>((r) => (two = r));
      const runs = Array.from({ length: 6 }, () =>
        store.transaction(async () => {
          if (++inside === 2) two();
          await gate;
        }),
      );
      await twoInside;
      release();
      const settled = await Promise.allSettled(runs);
      expect(settled.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    } finally {
      await store.close();
      await admin(`DROP ROLE IF EXISTS "${small}"`);
    }
  });
});
