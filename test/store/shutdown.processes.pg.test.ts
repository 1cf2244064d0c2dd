/**
 * Two real service processes on one database (issue 23). First, API-key revocation: keys are
 * authenticated from a per-process cache, kept fresh by LISTEN/NOTIFY, so a key revoked on
 * instance A is refused by instance B on the very next request.
 *
 * Then point 6, graceful shutdown, with two real service processes (`src/main.ts`) on one
 * PostgreSQL database and one anvil. Instance A holds the scheduler's leases and is serving a
 * request that takes seconds (an agent turn whose model, a loopback fake of the Anthropic API,
 * answers late) when it gets SIGTERM. Then: A refuses new connections at once, the request in
 * flight is answered in full, A exits 0 having released every lease it held (rows in
 * `store_leases` no longer name it), and instance B runs the jobs from its next tick instead of
 * waiting for A's leases to lapse.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cluster, startSharedChain, until, type Cluster, type Instance, type SharedChain } from '../helpers/cluster.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { createMerchant, type Merchant } from '../helpers/service.js';

const MODEL_DELAY_MS = 3_000;
/** Each job's lease lasts two intervals: 30 s here, so "at once" is far from "after it lapsed". */
const INTERVAL = '15s';

let db: TestDatabase | undefined;
let chain: SharedChain | undefined;
let nodes: Cluster | undefined;
let model: http.Server | undefined;
let client: pg.Client | undefined;
afterAll(async () => {
  await nodes?.stopAll();
  await chain?.stop();
  model?.close();
  await client?.end();
  await db?.drop();
});

/** The Messages API, answering every call with one text block after MODEL_DELAY_MS. */
async function slowModel(onCall: () => void): Promise<string> {
  model = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      onCall();
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'msg_slow',
            type: 'message',
            role: 'assistant',
            model: 'claude-test',
            content: [{ type: 'text', text: 'Here is a slow answer.' }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 5 },
          }),
        );
      }, MODEL_DELAY_MS);
    });
  });
  await new Promise<void>((r) => model!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(model.address() as AddressInfo).port}`;
}

async function leases(): Promise<Map<string, { owner: string; live: boolean }>> {
  const r = await client!.query<{ name: string; owner: string; live: boolean }>('SELECT name, owner, expires_at > now() AS live FROM store_leases');
  return new Map(r.rows.map((x) => [x.name, { owner: x.owner, live: x.live }]));
}

let modelCalled!: () => void;
const called = new Promise<void>((r) => (modelCalled = r));
let a: Instance;
let b: Instance;
let aOwner: string;
let merchant: Merchant;

beforeAll(async () => {
  const modelUrl = await slowModel(() => modelCalled());
  db = await createDatabase();
  chain = await startSharedChain();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  nodes = cluster({
    databaseUrl: db.url,
    chain,
    env: {
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: modelUrl,
      EXPIRY_SWEEP_INTERVAL: INTERVAL,
      RECONCILE_INTERVAL: INTERVAL,
      WEBHOOK_RESCAN_INTERVAL: INTERVAL,
      DEPOSIT_WATCH_INTERVAL: INTERVAL,
      SHUTDOWN_GRACE: '20s',
    },
  });
  a = await nodes.start('a', 1);
  // A alone: its scheduler takes every job's lease at its first tick (the atStart jobs at once).
  aOwner = (await until(async () => (await leases()).get('reconcile:settlement')?.owner, 'A to take reconcile:settlement', 30_000))!;
  b = await nodes.start('b', 2);
  merchant = await createMerchant(a.api, 'Two Instances Shop');
}, 120_000);

const ping = (inst: Instance, key: string) => fetch(`${inst.api}/v1/ping`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);

describe('API keys across instances', () => {
  it('a key revoked on A is refused by B on the next request, though B had it cached', async () => {
    const created = await fetch(`${a.api}/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: merchant.cookie },
      body: JSON.stringify({ label: 'to revoke' }),
    }).then((r) => r.json() as Promise<{ key: { id: string; secret: string } }>);
    const { id, secret } = created.key;
    // B authenticates it (and remembers it), several times.
    for (let i = 0; i < 3; i++) expect(await ping(b, secret)).toBe(200);
    expect(await ping(a, secret)).toBe(200);
    const revoked = await fetch(`${a.api}/keys/${id}`, { method: 'DELETE', headers: { cookie: merchant.cookie } });
    expect(revoked.status).toBe(200);
    expect(await ping(b, secret)).toBe(401);
    expect(await ping(a, secret)).toBe(401);
    // The merchant's other key is untouched.
    expect(await ping(b, merchant.key)).toBe(200);
  });
});

describe('SIGTERM on one of two instances', () => {
  it('finishes the request in flight, releases its leases, and the other instance takes the jobs at once', { timeout: 180_000 }, async () => {
    const held = [...(await leases())].filter(([, l]) => l.owner === aOwner && l.live).map(([name]) => name);
    expect(held).toEqual(expect.arrayContaining(['reconcile:settlement', 'reconcile:refunds', 'watch:deposits', `instance:${aOwner}`]));
    expect(held.some((n) => n.startsWith('relayer:'))).toBe(true);

    // A request in flight on A: the agent turn waits MODEL_DELAY_MS for the model.
    const inFlight = fetch(`${a.api}/agent/settle`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'tell me something slowly' }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { ok: boolean; reply: string } }));
    await called;
    const signalledAt = Date.now();
    a.child.kill('SIGTERM');

    // A stops accepting at once: a new connection is refused well before the turn ends.
    await until(
      async () =>
        fetch(`${a.api}/v1/ping`, { headers: { authorization: `Bearer ${merchant.key}`, connection: 'close' } }).then(
          () => false,
          () => true,
        ),
      'A to refuse new connections',
      MODEL_DELAY_MS - 500,
    );
    expect(Date.now() - signalledAt).toBeLessThan(MODEL_DELAY_MS);

    // The request in flight gets its whole answer.
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.body.reply).toContain('slow answer');

    expect(await a.exited).toBe(0);
    // Nothing names A any more: every lease it held was given up on the way out.
    const after = await leases();
    for (const name of held) expect(after.get(name)?.owner === aOwner && after.get(name)?.live, name).not.toBe(true);

    // B runs the jobs from its next tick (within one interval), not after A's leases lapse (two intervals).
    const bTook = await until(
      async () => {
        const l = await leases();
        return ['reconcile:settlement', 'sweep:expiry', 'reconcile:refunds'].every((n) => l.get(n)?.owner !== undefined && l.get(n)?.owner !== aOwner && l.get(n)?.live);
      },
      'B to take the jobs',
      25_000,
    );
    expect(bTook).toBe(true);
    expect(Date.now() - signalledAt).toBeLessThan(30_000 + MODEL_DELAY_MS);
    // And B still serves.
    const ping = await fetch(`${b.api}/v1/ping`, { headers: { authorization: `Bearer ${merchant.key}` } });
    expect(ping.status).toBe(200);
  });
});
