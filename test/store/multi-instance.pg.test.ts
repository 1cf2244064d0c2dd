import { copyFile, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PendingActions, type PendingAction } from '../../src/agent/pending-tool-call.js';
import { Payments } from '../../src/payments/payments.js';
import { WebhookDeliveries } from '../../src/webhooks/outbox.js';
import { call, createMerchant, startTestService, tempDir, type Merchant, type TestService } from '../helpers/service.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { journalId, storeRelayJournal } from '../../src/chain/relay-journal.js';

/**
 * Two service instances on one PostgreSQL database (docs/deploy.md): what one instance does
 * the other sees, and work that must happen once happens once. The second instance shares the
 * first one's secrets file (webhook secret box, wallets), as a deployment does.
 */
let db: TestDatabase;
let a: TestService;
let b: TestService;
let m: Merchant;

const env = (db: TestDatabase) => ({
  DATABASE_URL: db.url,
  AGENT_RATE_LIMIT: '5/min',
  WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms',
  WEBHOOK_RESCAN_INTERVAL: '100ms',
  RECONCILE_INTERVAL: '1h',
});

beforeAll(async () => {
  db = await createDatabase();
  a = await startTestService(env(db));
  // B shares A's secrets (webhook secret box, wallet mnemonic) but has a relayer key of its own.
  const dirB = await tempDir('sp-instance-b-');
  const secrets = JSON.parse(await readFile(path.join(a.dataDir, 'secrets.json'), 'utf8')) as Record<string, unknown>;
  delete secrets.relayerPrivateKey;
  await writeFile(path.join(dirB, 'secrets.json'), JSON.stringify(secrets), { mode: 0o600 });
  b = await startTestService(env(db), { dataDir: dirB });
  m = await createMerchant(a.api, 'Two Instance Shop');
});

afterAll(async () => {
  await a?.stop({ removeData: true });
  await b?.stop({ removeData: true });
  await db?.drop();
});

const pay = (svc: TestService, headers: Record<string, string> = {}, body: Record<string, unknown> = {}) =>
  call(`${svc.api}/v1/payments`, {
    key: m.key,
    headers,
    body: { amount: 10, currency: 'USD', redirect_url: 'https://shop.example/done', ...body },
  });

describe('two instances, one PostgreSQL database', () => {
  it('a key created on one instance works on the other; a payment created on one reads on the other', async () => {
    const created = await pay(b);
    expect(created.status).toBe(201);
    const read = await call(`${a.api}/checkout/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.payment.id).toBe(created.body.id);
  });

  it('the same Idempotency-Key sent to both instances at once creates one payment', async () => {
    const before = await a.deps.store.table(Payments).count({ accountId: m.accountId });
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => pay(i % 2 ? a : b, { 'idempotency-key': 'order-7-attempt' }, { description: 'same body' })),
    );
    expect(responses.map((r) => r.status).every((s) => s === 201)).toBe(true);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await a.deps.store.table(Payments).count({ accountId: m.accountId })).toBe(before + 1);
  });

  it("an agent turn's Idempotency-Key sent to both instances at once runs one turn (h16probe)", async () => {
    const before = await a.deps.store.table(Payments).count({ accountId: m.accountId });
    const turn = (svc: TestService) =>
      call(`${svc.api}/agent/settle`, { key: m.key, headers: { 'Idempotency-Key': 'link-mug-1' }, body: { message: 'create a payment link for 5 USD for a mug' } });
    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => turn(i % 2 ? a : b)));
    const done = responses.filter((r) => r.status === 200);
    expect(done.length + responses.filter((r) => r.status === 409 && r.body.reason === 'in_progress').length).toBe(6);
    expect(await a.deps.store.table(Payments).count({ accountId: m.accountId })).toBe(before + 1);
    // Once answered, either instance replays the one answer.
    const [onA, onB] = [await turn(a), await turn(b)];
    expect(onA.headers.get('idempotent-replayed')).toBe('true');
    expect(onB.body).toEqual(onA.body);
    expect(onA.body.payment.id).toBeDefined();
    for (const r of done) expect(r.body.payment.id).toBe(onA.body.payment.id);
  });

  it('the same reference sent to both instances at once creates one payment', async () => {
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => pay(i % 2 ? a : b, {}, { reference: 'inv-2041' })));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
  });

  it('the agent rate limit counts one account across both instances, exactly, under a burst', async () => {
    const other = await createMerchant(b.api, 'Burst Shop');
    const responses = await Promise.all(
      Array.from({ length: 14 }, (_, i) => call(`${(i % 2 ? a : b).api}/agent/settle`, { key: other.key, body: { message: 'help' } })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
  });

  it('a webhook attempt on the wire from one instance is not sent again by the other', async () => {
    // A receiver that takes a while to answer: the other instance rescans many times meanwhile.
    const received: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(body);
        setTimeout(() => res.writeHead(200).end('ok'), 1500);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const created = await pay(a, {}, { webhook_url: url, expires_in_minutes: 1 });
      expect(created.status).toBe(201);
      expect(await a.deps.payments.sweepExpired(Date.now() + 61_000)).toBeGreaterThanOrEqual(1);
      const deadline = Date.now() + 20_000;
      let delivered = false;
      while (Date.now() < deadline && !delivered) {
        await new Promise((r) => setTimeout(r, 200));
        const rows = await a.deps.store.table(WebhookDeliveries).findMany({ paymentId: created.body.id });
        delivered = rows.length === 1 && rows[0]!.status === 'delivered';
      }
      expect(delivered).toBe(true);
      // Both dispatchers kept rescanning for a while longer: still one request on the wire.
      await new Promise((r) => setTimeout(r, 500));
      expect(received.filter((r) => r.includes(created.body.id))).toHaveLength(1);
      const [row] = await a.deps.store.table(WebhookDeliveries).findMany({ paymentId: created.body.id });
      expect(row!.attempts.filter((x) => x.interrupted)).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('a third instance with a relayer key a live instance uses is refused at start, naming the fix', async () => {
    const dirC = await tempDir('sp-instance-c-');
    await copyFile(path.join(a.dataDir, 'secrets.json'), path.join(dirC, 'secrets.json'));
    // A journaled transaction of the live instance's relayer: refused before its journal is
    // touched, the third instance neither re-broadcasts nor (its own chain is fresh) deletes it.
    const chain = a.deps.chain;
    const journal = storeRelayJournal(a.deps.store);
    const held = { chainId: chain.chainId, relayer: chain.relayerAddress, nonce: 1_000_000, hash: `0x${'ab'.repeat(32)}` as const, raw: '0x02' as const };
    await journal.record(held);
    try {
      await expect(startTestService(env(db), { dataDir: dirC })).rejects.toThrow(/in use by the running instance .*own RELAYER_PRIVATE_KEY/);
      expect((await journal.list(chain.chainId, chain.relayerAddress)).map((e) => e.hash)).toContain(held.hash);
    } finally {
      await journal.remove([journalId(chain.chainId, chain.relayerAddress, held.nonce)]);
    }
  });

  it('start-up recovery leaves an action another live instance is executing alone, and settles a dead one’s', async () => {
    const now = new Date().toISOString();
    const action = (id: string, executor: string): PendingAction => ({
      id,
      accountId: m.accountId,
      channel: 'chat',
      call: { name: 'send_transfer', input: {} } as unknown as PendingAction['call'],
      description: 'test',
      status: 'executing',
      createdAt: now,
      expiresAt: now,
      updatedAt: now,
      executor,
    });
    // A live instance: it holds its lease (renewed, as InstanceLease does).
    await a.deps.store.lease('instance:live-elsewhere', 'live-elsewhere', 60_000);
    await a.deps.store.write(PendingActions, async (t) => {
      await t.insert(action('pa_live', 'live-elsewhere'));
      await t.insert(action('pa_dead', 'gone-instance'));
    });
    expect(await b.deps.agent!.recoverInterrupted()).toBe(1);
    expect((await a.deps.store.table(PendingActions).get('pa_live'))!.status).toBe('executing');
    expect((await a.deps.store.table(PendingActions).get('pa_dead'))!.status).toBe('done');
    // Once the owner's lease is gone, the next pass takes it over.
    await a.deps.store.releaseLease('instance:live-elsewhere', 'live-elsewhere');
    expect(await b.deps.agent!.recoverInterrupted()).toBe(1);
    expect((await a.deps.store.table(PendingActions).get('pa_live'))!.status).toBe('done');
  });
});
