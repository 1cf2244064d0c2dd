/**
 * Issue 23 point 1: the database round trips of one `POST /api/v1/payments` on PostgreSQL,
 * counted at the driver (every `Client.query` the service's pool sends), over real HTTP.
 * Before: 7 with a reference (key by id, key by hash, BEGIN, reference dedupe, INSERT, COMMIT,
 * the account for pay_to), 9 with an Idempotency-Key. Now 1 and 3 (docs/performance.md; 4 before
 * the eighth round, h8pg, when the BEGIN had its own round trip).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../../src/store/index.js';
import { Payments } from '../../src/payments/payments.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { statementCounter } from '../helpers/pg-statements.js';

let s: TestService;
let m: Merchant;
let counter: ReturnType<typeof statementCounter>;

beforeAll(async () => {
  s = await startTestService({ RECONCILE_INTERVAL: '1h', EXPIRY_SWEEP_INTERVAL: '1h', WEBHOOK_RESCAN_INTERVAL: '1h', DEPOSIT_WATCH_INTERVAL: '1h' });
  m = await createMerchant(s.api, 'Round Trip Shop');
  counter = statementCounter();
});
afterAll(async () => {
  counter?.restore();
  await s?.stop({ removeData: true });
});

let seq = 0;
async function create(extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const body = { amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/ok', reference: `rt-${Date.now()}-${++seq}`, description: 'd', metadata: { o: String(seq) }, ...extra };
  counter.start();
  const r = await call(`${s.api}/v1/payments`, { key: m.key, body, headers });
  return { r, ...counter.stop() };
}

describe('round trips of one create on PostgreSQL', () => {
  it('a create with a reference is one statement; with an Idempotency-Key, three', async () => {
    await create(); // warm: the key and the account's wallet index are remembered from here on
    const plain = await create();
    expect(plain.r.status).toBe(201);
    expect(plain.statements).toHaveLength(1);
    expect(plain.statements[0]).toMatch(/^WITH ins AS \(INSERT INTO "payments"/);
    const idem = await create({}, { 'Idempotency-Key': `idem-${seq}` });
    expect(idem.r.status).toBe(201);
    // BEGIN with the key's claim, the payment's insert, COMMIT.
    expect(idem.statements).toHaveLength(3);
    expect(idem.statements[0]).toMatch(/^BEGIN ISOLATION LEVEL READ COMMITTED;\n/);
    expect(idem.statements[2]).toBe('COMMIT');
  });

  it('the dedupe and the replay answer as before, with no extra statement for the key', async () => {
    const body = { amount: 3, currency: 'USD', redirect_url: 'https://shop.example/ok', reference: `dup-${Date.now()}` };
    const first = await call(`${s.api}/v1/payments`, { key: m.key, body });
    expect(first.status).toBe(201);
    counter.start();
    const again = await call(`${s.api}/v1/payments`, { key: m.key, body });
    const { statements } = counter.stop();
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(statements).toHaveLength(1);
    const conflict = await call(`${s.api}/v1/payments`, { key: m.key, body: { ...body, amount: 4 } });
    expect(conflict.status).toBe(409);
    // An Idempotency-Key whose create was refused is not kept: the same key works for a valid body.
    const key = `idem-refused-${Date.now()}`;
    expect((await call(`${s.api}/v1/payments`, { key: m.key, body: { ...body, amount: 4 }, headers: { 'Idempotency-Key': key } })).status).toBe(409);
    const fresh = await call(`${s.api}/v1/payments`, { key: m.key, body: { ...body, reference: `${body.reference}-b` }, headers: { 'Idempotency-Key': key } });
    expect(fresh.status).toBe(201);
    const replay = await call(`${s.api}/v1/payments`, { key: m.key, body: { ...body, reference: `${body.reference}-b` }, headers: { 'Idempotency-Key': key } });
    expect(replay.body.id).toBe(fresh.body.id);
  });

  it("the insert-or-get statement's generic plan (prepared) reads the holder through the indexes, never a scan", async () => {
    const store = s.deps.store as PgStore;
    const sql = (store as any).tableSql(Payments);
    const row = { id: 'pay_plan_probe', accountId: m.accountId, livemode: true, reference: `rt-${Date.now()}-1`, status: 'pending' };
    const q = sql.insertOrGet(row, JSON.stringify(row)) as { text: string; params: unknown[] };
    const c = await store.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL plan_cache_mode = force_generic_plan');
      await c.query({ name: 'probe_plan', text: q.text, values: q.params });
      const plan = (await c.query(`EXPLAIN (COSTS OFF) ${q.text}`, q.params)).rows.map((r: any) => r['QUERY PLAN']).join('\n');
      expect(plan).not.toMatch(/Seq Scan on payments/);
      expect(plan).toMatch(/Index Scan using "payments__u__accountId__livemode__reference"/);
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
  });
});
